#include "exec/steady_report.hpp"

#include "core/quantity.hpp"

#include <fmt/format.h>

namespace evb {

TargetVerdict target_verdict(const SteadyVerdict& v, double target_gbps) {
    TargetVerdict t;
    if (!v.steady || target_gbps <= 0) return t;
    if (v.mean_gbps - v.half_width_gbps >= target_gbps)
        t.average = true;
    else if (v.mean_gbps + v.half_width_gbps < target_gbps)
        t.average = false;
    t.slowest = v.slowest_gbps >= target_gbps;
    return t;
}

namespace {

std::string met_text(const std::optional<bool>& met) { return !met ? "undecided (within the half-width)" : *met ? "met" : "NOT met"; }

} // namespace

std::string steady_text(const SteadyVerdict& v, const Config& c) {
    std::string text = fmt::format("# steady state (--until steady, +-{:g} %): ", c.steady_bound_percent);
    if (v.steady)
        text += fmt::format("reached at {:.6g} s", v.until.seconds());
    else
        text +=
            fmt::format("not reached by {:.6g} s (the cap, --duration {}): {}", v.until.seconds(), format_duration(c.duration), v.why_not);
    text += "\n";
    if (v.batches)
        text += fmt::format(
            "#   built {:.2f} +- {:.2f} Gb/s per node (95 %, {} batch means, lag-1 {:.2f}) over {:.6g}..{:.6g} s; slowest node {} {:.2f}; "
            "start-up 0..{:.6g} s {:.2f}; {} BUs built nothing in the window\n",
            v.mean_gbps, v.half_width_gbps, v.batches, v.lag1, v.began.seconds(), v.until.seconds(), v.slowest, v.slowest_gbps,
            v.began.seconds(), v.start_up_gbps, v.idle_builders);
    if (v.batches && c.warmup < v.began)
        text += fmt::format("#   (the table and the system line count from {:g} s, --warmup: the start-up's figures are in them)\n",
                            c.warmup.seconds());
    if (c.target_gbps > 0) {
        if (!v.steady) return text + fmt::format("# target {:g} Gb/s per node: no verdict, the rate is not known\n", c.target_gbps);
        const TargetVerdict t = target_verdict(v, c.target_gbps);
        text += fmt::format("# target {:g} Gb/s per node: average {} ({:.2f} +- {:.2f}), slowest node {} ({:.2f})\n", c.target_gbps,
                            met_text(t.average), v.mean_gbps, v.half_width_gbps, met_text(t.slowest), v.slowest_gbps);
    }
    return text;
}

nlohmann::json steady_json(const SteadyVerdict& v, const Config& c) {
    auto optional = [](const std::optional<bool>& b) { return b ? nlohmann::json(*b) : nlohmann::json(nullptr); };
    nlohmann::json j{{"reached", v.steady},
                     {"why_not", v.why_not},
                     {"bound_percent", c.steady_bound_percent},
                     {"batches", v.batches},
                     {"lag1", v.lag1},
                     {"began_s", v.began.seconds()},
                     {"until_s", v.until.seconds()},
                     {"start_up_gbps", v.start_up_gbps},
                     {"per_node_built_gbps", v.mean_gbps},
                     {"half_width_gbps", v.half_width_gbps},
                     {"idle_builders", v.idle_builders},
                     {"short_builders", v.short_builders},
                     {"slowest_node", v.slowest},
                     {"slowest_gbps", v.batches ? v.slowest_gbps : 0.0}};
    if (c.target_gbps > 0) {
        const TargetVerdict t = target_verdict(v, c.target_gbps);
        j["target"] = {{"gbps", c.target_gbps}, {"average_met", optional(t.average)}, {"slowest_met", optional(t.slowest)}};
    }
    return j;
}

void add_steady_report(RunOutcome& outcome, const SteadyVerdict& v, const Config& c) {
    outcome.extra_text += steady_text(v, c);
    outcome.extra_results["steady"] = steady_json(v, c);
}

} // namespace evb
