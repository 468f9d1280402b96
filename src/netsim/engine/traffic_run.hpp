// One simulation run of a traffic injector on a fabric, measured over a window: what
// `evbench netsim`, the tests and the benchmark all call.
#pragma once
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/engine/fabric_sim.hpp"
#include "netsim/engine/traffic.hpp"

#include <functional>
#include <vector>

namespace evb::netsim {

struct TrafficRunResult {
    Picoseconds window_start{}, window_end{}; // throughput is measured over this window
    std::vector<double> rx_gbps, tx_gbps; // payload per host over the window
    double rx_avg = 0, rx_min = 0, rx_max = 0; // over hosts that received
    double tx_avg = 0, tx_min = 0, tx_max = 0; // over hosts that sent
    double aggregate_gbps = 0; // sum of rx
    double effective_gbps = 0; // eq. 2.14 for the message size: the line rate of payload
    std::vector<SimPortStats> ports;
    LatencyHistogram packet_latency, message_latency;
    std::uint64_t events = 0, flit_hops = 0, messages_in_flight = 0;
    double wall_seconds = 0;
    std::uint32_t threads = 1; // that ran the fabric's parts (FabricSim::parts)
    FabricSim::WindowStats windows;
    Picoseconds simulated{};
};

// Progress of a run: `line` is called every `every` of simulated time with the hosts' counters.
struct TrafficProgress {
    Picoseconds every{}; // 0: no progress
    std::function<void(Picoseconds now, const std::vector<SimHostStats>& hosts)> line;
};

// Runs until `duration` (then stops, in-flight traffic is not counted) or, with a zero duration,
// until all traffic is delivered; the window starts at `warmup`. With options.checks the fabric
// must end quiescent (SimCheckError otherwise).
TrafficRunResult run_traffic(const Fabric& fabric, const SimOptions& options, TrafficSpec traffic, Picoseconds warmup, Picoseconds duration,
                             const TrafficProgress& progress = {});

} // namespace evb::netsim
