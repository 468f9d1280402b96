// The simulated executor: the same Node, ReadoutUnit, BuilderUnit and EventManager as a real run,
// driven by the discrete-event engine. Entry points are called at simulated times, now() is
// simulated time, posts become work requests of the simulated host adapters (after the host
// latency model) and every message between hosts crosses the simulated fabric.
#pragma once
#include "config.hpp"
#include "netsim/fabric_sim.hpp"
#include "run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb {

struct SimRunResult {
    RunResult run;                  // what a real run reports, in simulated time
    nlohmann::json network;         // ports, packet latency, the simulator's speed
};

// Builds the fabric from config.sim_fabric (auto-sized fat tree when k is 0), places node i on
// the fabric's host i (the EM's own rank, if any, on host N), runs, prints header, progress lines
// (simulated time), the usual table and the network counters. Throws ConfigError on a fabric
// that cannot hold the run, std::invalid_argument / netsim::RoutingError on bad fabric input.
SimRunResult run_simulated(const Config& config, std::ostream& out);

// The smallest k whose 2-level fat tree (2k^2 hosts) holds `hosts`.
std::uint32_t fat_tree_k_for(std::uint32_t hosts);

} // namespace evb
