#include "netsim/fabric/conflict_analyser.hpp"

#include <algorithm>

namespace evb::netsim {

std::vector<PhaseLoad> analyse_linear_shift(const Topology& t, const Routing& r, std::vector<std::uint32_t> order) {
    if (order.empty()) order = t.hosts();
    // Flat channel index: first port of each device.
    std::vector<std::uint32_t> first(t.devices().size() + 1, 0);
    for (std::uint32_t d = 0; d < t.devices().size(); ++d) first[d + 1] = first[d] + static_cast<std::uint32_t>(t.device(d).ports.size());
    const auto n = static_cast<std::uint32_t>(order.size());
    // Paths are traced once per pair that some phase uses: all of them.
    std::vector<std::vector<std::uint32_t>> paths(std::size_t{n} * n);
    for (std::uint32_t a = 0; a < n; ++a)
        for (std::uint32_t b = 0; b < n; ++b)
            if (a != b)
                for (const auto& ch : trace(t, r, order[a], order[b])) paths[std::size_t{a} * n + b].push_back(first[ch.device] + ch.port);

    std::vector<PhaseLoad> phases;
    std::vector<std::uint32_t> load(first.back(), 0);
    for (std::uint32_t s = 1; s < n; ++s) {
        std::fill(load.begin(), load.end(), 0);
        PhaseLoad phase{s, 0, {}};
        std::uint32_t worst = 0;
        for (std::uint32_t i = 0; i < n; ++i)
            for (auto ch : paths[std::size_t{i} * n + (i + s) % n])
                if (++load[ch] > phase.max_flows) {
                    phase.max_flows = load[ch];
                    worst = ch;
                }
        std::uint32_t device = 0;
        while (first[device + 1] <= worst) ++device;
        phase.worst = {device, worst - first[device]};
        phases.push_back(phase);
    }
    return phases;
}

ShiftSummary summarise(const std::vector<PhaseLoad>& phases) {
    ShiftSummary s;
    for (const auto& p : phases) {
        s.worst = std::max(s.worst, p.max_flows);
        s.conflicting += p.max_flows > 1;
        s.relative += 1.0 / p.max_flows;
    }
    if (!phases.empty()) s.relative /= static_cast<double>(phases.size());
    return s;
}

} // namespace evb::netsim
