// Static conflict analysis (paper 003 sec. 4.1, done there by hand): for a fabric, its LFTs and
// an order of ranks on hosts, the number of flows on the most loaded channel in every phase of a
// linear shift (rank i sends to rank i + s). 1 everywhere means the shift is conflict-free; 2 or
// 3 means the affected phases run at 1/2 or 1/3 of line rate.
#pragma once
#include "netsim/fabric/routing.hpp"

#include <vector>

namespace evb::netsim {

struct PhaseLoad {
    std::uint32_t shift = 0;
    std::uint32_t max_flows = 0; // on the most loaded channel
    PortRef worst{}; // that channel: device and output port
};

// rank_to_host: device index of the host of each rank (empty: topology.hosts() order).
std::vector<PhaseLoad> analyse_linear_shift(const Topology& topology, const Routing& routing, std::vector<std::uint32_t> rank_to_host = {});

struct ShiftSummary {
    std::uint32_t conflicting = 0; // phases with more than one flow on some channel
    std::uint32_t worst = 0; // most flows on one channel over all phases
    double relative = 0; // a full shift's speed: mean over phases of 1/max_flows
};
ShiftSummary summarise(const std::vector<PhaseLoad>& phases);

} // namespace evb::netsim
