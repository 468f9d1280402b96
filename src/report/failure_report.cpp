#include "report/failure_report.hpp"

#include "units/layout.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace evb {
namespace {

// The earliest moment a loss is known to have begun: its failure where known, else its detection.
Picoseconds loss_start(const NodeLoss& l) { return l.failed_at >= Picoseconds(0) ? l.failed_at : l.at; }

} // namespace

Recovery recovery_of(const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples) {
    Recovery r;
    const NodeStats sys = result.system();
    if (sys.losses.empty()) return r;
    Picoseconds start = loss_start(sys.losses.front());
    std::uint32_t lost_bus = 0;
    const Layout layout = Layout::from_config(config);
    for (const auto& l : sys.losses) {
        start = std::min(start, loss_start(l));
        if (layout.units_on(l.rank).builder) ++lost_bus;
    }
    // Samples 1..k before the loss: the first interval fills every credit at once.
    std::size_t last_before = 0;
    while (last_before + 1 < samples.size() && samples[last_before + 1].at <= start) ++last_before;
    if (last_before < 2) return r;
    const auto& a = samples[1];
    const auto& b = samples[last_before];
    r.rate_before_hz = static_cast<double>(b.events - a.events) / (b.at - a.at).seconds();
    r.expected_hz = r.rate_before_hz * (config.bu_count() - lost_bus) / config.bu_count();
    r.known = true;
    for (std::size_t i = last_before + 1; i + 1 < samples.size(); ++i) {
        const auto& from = samples[i];
        const auto& to = samples[i + 1];
        if (from.at < start || to.at <= from.at) continue;
        double rate = static_cast<double>(to.events - from.events) / (to.at - from.at).seconds();
        if (rate >= 0.9 * r.expected_hz) {
            r.time_to_full_rate = to.at - start;
            break;
        }
    }
    return r;
}

void print_failures(std::ostream& out, const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples) {
    const NodeStats sys = result.system();
    if (sys.losses.empty()) return;
    const Layout layout = Layout::from_config(config);
    for (const auto& l : sys.losses) {
        std::string detection = l.failed_at >= Picoseconds(0)
            ? fmt::format(" (failed at {:.6f} s, detected after {:.6f} s)", l.failed_at.seconds(), (l.at - l.failed_at).seconds())
            : "";
        fmt::print(out, "# lost: rank {} ({}) at {:.6f} s{}: {}\n", l.rank, units_text(layout.units_on(l.rank)), l.at.seconds(), detection,
                   l.how);
    }
    fmt::print(out,
               "# failures: {} events re-assigned, {} re-built by survivors, {} built by lost BUs before; {} events incomplete, {} "
               "fragments lost\n",
               sys.events_reassigned, sys.events_rebuilt, sys.events_built_by_lost, sys.events_incomplete, sys.fragments_lost);
    const Recovery r = recovery_of(config, result, samples);
    if (!r.known)
        fmt::print(out, "# recovery: unknown (fewer than 3 progress samples before the loss; shorten --progress-interval)\n");
    else if (r.time_to_full_rate)
        fmt::print(out,
                   "# recovery: {:.1f} Hz before, {:.1f} Hz expected of the survivors, reached {:.6f} s after the loss (to the end of that "
                   "progress interval)\n",
                   r.rate_before_hz, r.expected_hz, r.time_to_full_rate->seconds());
    else
        fmt::print(out, "# recovery: {:.1f} Hz before, {:.1f} Hz expected of the survivors: not reached again in any progress interval\n",
                   r.rate_before_hz, r.expected_hz);
}

nlohmann::json failures_json(const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples) {
    const NodeStats sys = result.system();
    const Layout layout = Layout::from_config(config);
    nlohmann::json lost = nlohmann::json::array();
    for (const auto& l : sys.losses)
        lost.push_back({{"rank", l.rank},
                        {"units", units_text(layout.units_on(l.rank))},
                        {"detected_s", l.at.seconds()},
                        {"failed_s", l.failed_at >= Picoseconds(0) ? nlohmann::json(l.failed_at.seconds()) : nlohmann::json(nullptr)},
                        {"how", l.how}});
    const Recovery r = recovery_of(config, result, samples);
    return {{"nodes_lost", lost},
            {"events_reassigned", sys.events_reassigned},
            {"events_rebuilt", sys.events_rebuilt},
            {"events_built_by_lost", sys.events_built_by_lost},
            {"events_incomplete", sys.events_incomplete},
            {"fragments_lost", sys.fragments_lost},
            {"rate_before_hz", r.known ? nlohmann::json(r.rate_before_hz) : nlohmann::json(nullptr)},
            {"expected_hz", r.known ? nlohmann::json(r.expected_hz) : nlohmann::json(nullptr)},
            {"time_to_full_rate_s", r.time_to_full_rate ? nlohmann::json(r.time_to_full_rate->seconds()) : nlohmann::json(nullptr)}};
}

} // namespace evb
