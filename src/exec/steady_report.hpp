// What a run under --until steady reports of its verdict: the lines under the table and
// results.steady in --json, with the target's verdict when --target is given.
#pragma once
#include "exec/run_config.hpp"
#include "exec/run_result.hpp"
#include "exec/steady_state.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace evb {

// Whether the built rate carries --target: true, false, or nothing when the rate's interval holds
// the target (or the rate is not known).
struct TargetVerdict {
    std::optional<bool> average, slowest;
};
TargetVerdict target_verdict(const SteadyVerdict& v, double target_gbps);

std::string steady_text(const SteadyVerdict& v, const Config& c);
nlohmann::json steady_json(const SteadyVerdict& v, const Config& c);
// Both, added to a run's outcome.
void add_steady_report(RunOutcome& outcome, const SteadyVerdict& v, const Config& c);

} // namespace evb
