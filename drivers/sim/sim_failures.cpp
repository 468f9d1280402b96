#include "drivers/sim/sim_failures.hpp"

#include "core/quantity.hpp"

#include <fmt/format.h>

namespace evb {

std::string to_string(FailKind k) { return k == FailKind::node ? "node" : k == FailKind::ru ? "ru" : "bu"; }

std::vector<InjectedFailure> parse_failures(const std::vector<std::string>& specs) {
    std::vector<InjectedFailure> out;
    for (const auto& spec : specs) {
        auto at = spec.find('@');
        if (at == std::string::npos || at == 0 || at + 1 == spec.size())
            throw ConfigError("--fail " + spec + ": expected NODE@TIME, e.g. 3@2ms");
        InjectedFailure f;
        try {
            std::size_t used = 0;
            unsigned long node = std::stoul(spec.substr(0, at), &used);
            if (used != at || node > max_nodes) throw std::invalid_argument("node");
            f.node = static_cast<std::uint32_t>(node);
        } catch (const std::exception&) {
            throw ConfigError("--fail " + spec + ": '" + spec.substr(0, at) + "' is not a node number");
        }
        try {
            f.at = parse_duration(spec.substr(at + 1));
        } catch (const std::exception& e) {
            throw ConfigError("--fail " + spec + ": " + e.what());
        }
        if (f.at <= Picoseconds(0)) throw ConfigError("--fail " + spec + ": the time must be after the start");
        out.push_back(f);
    }
    return out;
}

void resolve_failures(std::vector<InjectedFailure>& failures, FailKind kind, const Layout& layout, const Config& config) {
    for (auto& f : failures) {
        const std::string which = fmt::format("--fail {}@{}", f.node, format_duration(f.at));
        if (f.node >= config.nodes)
            throw ConfigError(fmt::format("{}: there is no node {} (nodes are 0..{})", which, f.node, config.nodes - 1));
        f.ranks.clear();
        for (std::uint32_t r = 0; r < layout.ranks(); ++r) {
            if (layout.node_of(r) != f.node) continue;
            const RankUnits u = layout.units_on(r);
            if (kind == FailKind::node || (kind == FailKind::ru && u.readout) || (kind == FailKind::bu && u.builder)) {
                if (kind != FailKind::node && u.readout && u.builder)
                    throw ConfigError(fmt::format("{}: --fail-kind {} needs the {} in a process of its own (--ppn 2 or --layout split); "
                                                  "--fail-kind node fails the whole node",
                                                  which, to_string(kind), kind == FailKind::ru ? "RU" : "BU"));
                f.ranks.push_back(r);
            }
        }
        if (f.ranks.empty())
            throw ConfigError(fmt::format("{}: node {} has no {} (a split layout's node either reads out or builds)", which, f.node,
                                          kind == FailKind::ru ? "RU" : "BU"));
        if (kind == FailKind::node) {
            if (config.heartbeat <= Picoseconds(0))
                throw ConfigError(fmt::format("{}: a machine that stops closes no connection; give --heartbeat to detect it "
                                              "(or --fail-kind ru|bu for a process that dies)",
                                              which));
            f.detected_at = f.at + config.heartbeat;
            f.how = fmt::format("sent nothing for {:g} s (--heartbeat)", config.heartbeat.seconds());
        } else {
            f.detected_at = f.at; // the kernel closes a dead process's connections at once
            f.how = "its process died (injected at " + format_duration(f.at) + ")";
        }
    }
}

} // namespace evb
