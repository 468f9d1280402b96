// The simulated executor: the same Node, ReadoutUnit, BuilderUnit and EventManager as a real run,
// driven by the discrete-event engine. Entry points are called at simulated times, now() is
// simulated time, posts become work requests of the simulated host adapters (after the host
// latency model) and every message between hosts crosses the simulated fabric.
#pragma once
#include "exec/run_config.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "exec/run_observer.hpp"
#include "exec/run_result.hpp"
#include "drivers/sim/sim_failures.hpp"
#include "netsim/engine/sim_options.hpp"

namespace evb {

class OptionSet;

// The sim driver's own options: the fabric and its InfiniBand model (the flags of `evbench
// netsim`), the warm-up and the port listing.
struct SimRunOptions {
    netsim::FabricOptions fabric; // k 0 (when --k is not given): the smallest fat tree that holds the hosts
    netsim::SimModelOptions model;
    bool all_ports = false; // list every port, not only the most stalled
    std::vector<std::string> fail; // NODE@TIME, each a failure injected at that simulated time
    FailKind fail_kind = FailKind::node;

    void declare(OptionSet& options);
    // Parses the model's spelled options; without --k (or --topology) the tree is sized to the
    // run. Throws ConfigError.
    void resolve(std::uint64_t seed, bool k_given, bool levels_given);
};

// Builds the fabric (auto-sized fat tree when k is 0), places node i on the fabric's host i (the
// EM's own rank, if any, on host N) and runs in simulated time. The outcome carries the usual
// result plus the network counters (extra_text, extra_results["network"]). Throws ConfigError on
// a fabric that cannot hold the run, std::invalid_argument / netsim::RoutingError on bad fabric
// input.
RunOutcome run_simulated(const Config& config, const SimRunOptions& options, RunObserver& observer);

// The smallest k whose 2-level fat tree (2k^2 hosts) holds `hosts`.
std::uint32_t fat_tree_k_for(std::uint32_t hosts);

} // namespace evb
