// Registry entry of the simulated fabric: every rank in this process on the InfiniBand model of
// src/netsim, driven by its own executor (sim_run.hpp) in simulated time. Its options are the
// fabric and model flags of `evbench netsim`, a warm-up and the port listing.
#pragma once
#include "exec/run_config.hpp"
#include "drivers/transport/driver.hpp"
#include "drivers/sim/sim_run.hpp"

namespace evb {

class SimDriver final : public Driver {
public:
    const char* name() const override { return "sim"; }
    const char* help() const override {
        return "every rank on the simulated InfiniBand fabric of `evbench netsim`, in simulated time (docs/simulator.md)";
    }
    Processes processes() const override { return Processes::all_in_one; }
    void declare_options(OptionSet& options) override { options_.declare(options); }
    // Simulated time is dear: 1 ms unless a duration or events are given, ten progress lines;
    // only fragment headers in memory; the model's spelled options parsed.
    void complete(Config& config, const OptionSet& given);
    const SimRunOptions& options() const { return options_; }

private:
    SimRunOptions options_;
};

} // namespace evb
