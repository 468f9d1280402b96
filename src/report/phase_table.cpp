#include "report/phase_table.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <limits>

namespace evb {

std::vector<PhaseRow> phase_rows(const RunResult& result) {
    std::size_t phases = 0;
    for (const auto& n : result.nodes) phases = std::max(phases, n.phases.size());
    std::vector<PhaseRow> rows(phases);
    for (std::size_t s = 0; s < phases; ++s) {
        PhaseRow& row = rows[s];
        row.shift = static_cast<std::uint32_t>(s);
        row.over_network = s != 0;
        row.min_gbps = std::numeric_limits<double>::max();
        double sum = 0;
        for (const auto& n : result.nodes) {
            PhaseFlow f = s < n.phases.size() ? n.phases[s] : PhaseFlow{};
            double rate = f.gbps();
            if (f.rate_messages < 2) ++row.short_nodes;
            row.messages += f.messages;
            row.min_gbps = std::min(row.min_gbps, rate);
            row.max_gbps = std::max(row.max_gbps, rate);
            sum += rate;
        }
        row.avg_gbps = result.nodes.empty() ? 0 : sum / static_cast<double>(result.nodes.size());
        if (result.nodes.empty()) row.min_gbps = 0;
    }
    return rows;
}

void print_phase_table(std::ostream& out, const std::vector<PhaseRow>& rows) {
    if (rows.empty()) return;
    fmt::print(out,
               "# shift scan: per-node receive rate in each phase's steady part (from its (w+1)-th message to the last before its end)\n");
    fmt::print(out, "{:>6} {:>10} {:>10} {:>10} {:>10}\n", "shift", "min_Gbps", "avg_Gbps", "max_Gbps", "messages");
    std::uint32_t short_phases = 0;
    for (const auto& r : rows) {
        fmt::print(out, "{:>6} {:>10.2f} {:>10.2f} {:>10.2f} {:>10}\n",
                   r.over_network ? std::to_string(r.shift) : std::to_string(r.shift) + "*", r.min_gbps, r.avg_gbps, r.max_gbps,
                   r.messages);
        if (r.short_nodes) ++short_phases;
    }
    if (!rows.empty() && !rows.front().over_network)
        fmt::print(out,
                   "# * shift 0 is each node to itself: it never crosses the network (a copy in memory; in the simulator, the "
                   "adapter's loopback at its link's signalling rate), so it is no network rate\n");
    if (short_phases)
        fmt::print(
            out,
            "# {} phases had nodes with fewer than 2 messages in the steady part (rate 0): lengthen --phase-time or --phase-messages\n",
            short_phases);
}

nlohmann::json phase_json(const std::vector<PhaseRow>& rows) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : rows)
        list.push_back({{"shift", r.shift},
                        {"min_gbps", r.min_gbps},
                        {"avg_gbps", r.avg_gbps},
                        {"max_gbps", r.max_gbps},
                        {"messages", r.messages},
                        {"nodes_without_rate", r.short_nodes},
                        {"over_network", r.over_network}});
    return list;
}

} // namespace evb
