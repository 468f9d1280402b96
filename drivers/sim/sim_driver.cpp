#include "drivers/sim/sim_driver.hpp"

#include "netsim/engine/ib_params.hpp"
#include "core/options.hpp"

namespace evb {

void SimDriver::complete(Config& c, const OptionSet& given) {
    // --until steady stops when the rate is known; --duration is then its cap.
    const bool steady = c.until == Until::steady;
    if (!c.events && !given.given("duration")) c.duration = Picoseconds::from_seconds(steady ? 10 : 1e-3);
    // Counted from the start unless asked: the report says when that window holds the start-up
    // (sim_run.cpp) and which --warmup leaves it out.
    if (!given.given("warmup")) c.warmup = Picoseconds(0);
    if (!given.given("progress-interval"))
        c.progress_interval = c.duration > Picoseconds(0) && !steady ? Picoseconds(c.duration.count() / 10)
                                                                     : Picoseconds::from_seconds(steady ? 10e-3 : 1e-3);
    c.fragment_memory = 64; // headers in memory; the rest exists on the simulated wire only
    // The event builder on 4 traffic VLs: what reproduces the thesis' fig. 3.17 and 3.18 (> 80 Gb/s
    // at 64 and 128 nodes, 16 credits; bench/barrel_start_and_vls.sh, README).
    if (!given.given("traffic-vls")) options_.model.sim.ib.traffic_vls = 4;
    options_.resolve(c.seed, given.given("k"), given.given("levels"));
    // a2a fits fragments into windows at the rate the simulated host link delivers them (eq.
    // 2.14): the fastest host cable's, as the report's b_eff. Only a2a reads it, so only a2a
    // reads a --topology dump for it.
    if (c.line_gbps == 0) {
        const auto& model = options_.model.sim;
        double host_gbps = model.ib.link_gbps;
        if (model.topology_rates && (c.scheduling == Scheduling::a2a || options_.fabric.topology_file.empty()))
            host_gbps = netsim::fastest_host_link_gbps(options_.fabric, host_gbps);
        c.line_gbps = netsim::effective_bandwidth_gbps(model.ib, c.fragment_size + c.meta_segments * c.meta_size, host_gbps);
    }
}

} // namespace evb
