#include "core/latency_histogram.hpp"

#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace evb {

int LatencyHistogram::bucket_of(std::uint64_t ns) {
    if (ns < (1u << sub_bits)) return static_cast<int>(ns);
    int exponent = 63 - std::countl_zero(ns); // >= sub_bits
    int shift = exponent - sub_bits;
    auto mantissa = static_cast<int>((ns >> shift) & ((1u << sub_bits) - 1));
    return ((shift + 1) << sub_bits) + mantissa;
}

std::uint64_t LatencyHistogram::bucket_floor(int bucket) {
    if (bucket < (1 << sub_bits)) return static_cast<std::uint64_t>(bucket);
    int shift = (bucket >> sub_bits) - 1;
    std::uint64_t mantissa = static_cast<std::uint64_t>(bucket & ((1 << sub_bits) - 1)) | (1u << sub_bits);
    return mantissa << shift;
}

void LatencyHistogram::record(Picoseconds latency) {
    auto ns = static_cast<std::uint64_t>(std::max<std::int64_t>(0, latency.count() / 1000));
    ++counts_[bucket_of(ns)];
    ++count_;
    sum_ns_ += ns;
    max_ns_ = std::max(max_ns_, ns);
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
    for (int i = 0; i < buckets; ++i) counts_[i] += o.counts_[i];
    count_ += o.count_;
    sum_ns_ += o.sum_ns_;
    max_ns_ = std::max(max_ns_, o.max_ns_);
}

double LatencyHistogram::percentile_us(double p) const {
    if (count_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (int i = 0; i < buckets; ++i) {
        seen += counts_[i];
        if (seen >= rank) {
            // Midpoint of the bucket, never above the observed maximum.
            double lo = static_cast<double>(bucket_floor(i));
            double hi = i + 1 < buckets ? static_cast<double>(bucket_floor(i + 1)) : lo;
            return std::min((lo + hi) / 2, static_cast<double>(max_ns_)) / 1e3;
        }
    }
    return max_us();
}

nlohmann::json LatencyHistogram::to_json() const {
    nlohmann::json b = nlohmann::json::array();
    for (int i = 0; i < buckets; ++i)
        if (counts_[i]) b.push_back({i, counts_[i]});
    return {{"count", count_}, {"sum_ns", sum_ns_}, {"max_ns", max_ns_}, {"buckets", b}};
}

LatencyHistogram LatencyHistogram::from_json(const nlohmann::json& j) {
    LatencyHistogram h;
    h.count_ = whole_field(j, "count");
    h.sum_ns_ = whole_field(j, "sum_ns");
    h.max_ns_ = whole_field(j, "max_ns");
    const auto& list = json_field(j, "buckets");
    if (!list.is_array()) throw std::invalid_argument("the field 'buckets' is not an array");
    for (const auto& b : list) {
        if (!b.is_array() || b.size() != 2 || !json_is_whole(b[0], buckets - 1) || !json_is_whole(b[1]))
            throw std::invalid_argument(fmt::format("a latency bucket is not [index 0 to {}, count]", buckets - 1));
        h.counts_[b[0].get<std::size_t>()] = b[1].get<std::uint64_t>();
    }
    return h;
}

} // namespace evb
