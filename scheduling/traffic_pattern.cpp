#include "scheduling/traffic_pattern.hpp"

#include "scheduling/barrel_shift.hpp"

namespace evb {

std::optional<std::uint32_t> TrafficPattern::target(std::uint32_t sender, std::uint64_t sent, std::uint32_t phase) const {
    switch (kind_) {
    case Benchmark::one_to_one: return shifted_peer(sender, shift_, nodes_);
    case Benchmark::shift_scan:
        if (phase >= nodes_) return std::nullopt;
        return shifted_peer(sender, phase, nodes_);
    case Benchmark::many_to_one:
        if (sender == 0) return std::nullopt;
        return 0u;
    case Benchmark::gather:
    case Benchmark::gather_cmd:
    case Benchmark::gather_cmd_meta:
        // Every sender walks the targets in the same order from 0: round r gathers at node r mod N,
        // as DAQPIPE's gather builds one event per round.
        return static_cast<std::uint32_t>(sent % nodes_);
    case Benchmark::event_building: break;
    }
    return std::nullopt;
}

} // namespace evb
