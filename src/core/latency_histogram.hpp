// Log-linear histogram of nanosecond latencies: 32 sub-buckets per power of two (<= 3% error),
// fixed size, no allocation when recording; merges across units and ranks.
#pragma once
#include "core/time.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>

namespace evb {

class LatencyHistogram {
public:
    void record(Picoseconds latency);
    void merge(const LatencyHistogram& other);
    std::uint64_t count() const { return count_; }
    double mean_us() const { return count_ ? static_cast<double>(sum_ns_) / count_ / 1e3 : 0; }
    double max_us() const { return static_cast<double>(max_ns_) / 1e3; }
    double percentile_us(double p) const; // p in [0, 100]

    nlohmann::json to_json() const; // sparse: only non-empty buckets
    static LatencyHistogram from_json(const nlohmann::json& j);

private:
    static constexpr int sub_bits = 5;
    static constexpr int buckets = (64 - sub_bits + 1) << sub_bits;
    static int bucket_of(std::uint64_t ns);
    static std::uint64_t bucket_floor(int bucket);

    std::array<std::uint64_t, buckets> counts_{};
    std::uint64_t count_ = 0;
    std::uint64_t sum_ns_ = 0;
    std::uint64_t max_ns_ = 0;
};

} // namespace evb
