// What surviving failures cost (--on-failure continue): which nodes were lost and when, the
// events re-assigned, re-built and incomplete, and, from the progress samples, how long the
// survivors took to reach their full rate again.
#pragma once
#include "exec/run_config.hpp"
#include "exec/run_result.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>
#include <vector>

namespace evb {

// Cumulative events built at one progress line (taken whether or not lines are printed).
struct ProgressSample {
    Picoseconds at{};
    std::uint64_t events = 0;
};

struct Recovery {
    double rate_before_hz = 0; // events/s before the first loss (first interval left out: the start fills credits)
    double expected_hz = 0; // that rate scaled to the surviving BUs
    // From the failure (or its detection, where the failure time is unknown) to the end of the
    // first progress interval after it at >= 90% of expected_hz; nullopt: not reached.
    std::optional<Picoseconds> time_to_full_rate;
    bool known = false; // enough samples before the loss to tell
};

Recovery recovery_of(const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples);

// Nothing when no node was lost.
void print_failures(std::ostream& out, const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples);
nlohmann::json failures_json(const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples);

} // namespace evb
