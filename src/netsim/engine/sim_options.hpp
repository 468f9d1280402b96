// Command-line flags of the InfiniBand model (link, credits, buffers, packetisation, host latency,
// simulation mode), shared by `evbench netsim` and `evbench --transport sim`.
#pragma once
#include "netsim/engine/fabric_sim.hpp"

#include <string>

namespace evb {
class OptionSet;
}

namespace evb::netsim {

// The model and the spelling of the two options that need parsing after the command line.
struct SimModelOptions {
    SimOptions sim;
    std::string mode = "packet";
    std::string host_latency = "fixed:0s";
    std::uint64_t memory = 0; // bytes the simulation may plan with (0: MemAvailable)
    std::uint32_t threads = 0; // --sim-threads (0: not given)
    // Parses mode and host_latency into sim, and sets its parts and threads (--sim-threads, or
    // 1); throws std::invalid_argument.
    void resolve();
};

void declare_sim_model_options(OptionSet& set, SimModelOptions& options);

} // namespace evb::netsim
