// How the simulated fabric is cut into parts that run apart within a window (SimPart::window_ps):
// a host goes with the switch it is cabled to (its leaf), so that a host's units, its adapter and
// its link are in one part and only links between switches are cut; leaves go in groups of
// about equal weight (their cabled ports, where the events are), in the order of their first
// host; every other switch, level by level, goes with the part it shares the most links with
// among those not yet at their share of the weight (ties, or none below it: the lightest), so
// that a pod of a tree stays whole and top switches, which reach every part alike, balance it.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <cstdint>
#include <vector>

namespace evb::netsim {

struct FabricPartition {
    std::uint32_t parts = 1; // fewer than asked when the fabric has fewer leaves
    std::vector<std::uint32_t> part_of_device; // per device of the topology
    std::vector<std::uint64_t> weight; // per part: its devices' cabled ports
    std::uint64_t cut_links = 0; // cables between two parts (always between two switches)
};

// `parts` >= 1. A fabric without a switch (hosts back to back) is one part.
FabricPartition partition_fabric(const Topology& topology, std::uint32_t parts);

} // namespace evb::netsim
