#include "netsim/engine/traffic_run.hpp"

#include <algorithm>
#include <chrono>

namespace evb::netsim {

TrafficRunResult run_traffic(const Fabric& fabric, const SimOptions& options, TrafficSpec traffic, Picoseconds warmup, Picoseconds duration,
                             const TrafficProgress& progress) {
    if (duration.count() > 0) {
        if (warmup >= duration) throw std::invalid_argument("warm-up must end before the duration");
        traffic.stop = std::min(traffic.stop, duration);
    }
    FabricSim sim(fabric.topology, fabric.routing, options);
    traffic.validate(sim.hosts());
    traffic.validate_window(options.ib);
    TrafficInjector injector(traffic);
    const auto wall_start = std::chrono::steady_clock::now();
    const Picoseconds end = duration.count() > 0 ? duration : Picoseconds::max();
    std::vector<SimHostStats> at_start(sim.hosts());
    // In steps of the progress interval, each step's end told.
    Picoseconds next_line = progress.every.count() > 0 && progress.line ? progress.every : Picoseconds::max();
    auto run_to = [&](Picoseconds until) {
        for (;;) {
            const Picoseconds step = std::min(until, next_line);
            sim.run(injector, step);
            if (sim.idle() || step == until) return;
            progress.line(step, sim.host_stats());
            next_line += progress.every;
        }
    };
    if (warmup.count() > 0) {
        run_to(warmup);
        at_start = sim.host_stats();
    }
    run_to(end);
    TrafficRunResult r;
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    r.window_start = warmup;
    // A run of a message count ends with its last delivery (the ACKs after it carry no data).
    r.window_end = duration.count() > 0 ? sim.now() : std::max(warmup, injector.last_delivery());
    r.simulated = sim.now();
    if (options.checks && duration.count() == 0) sim.verify_quiescent();
    const double seconds = (r.window_end - r.window_start).seconds();
    double rx_sum = 0, tx_sum = 0;
    std::uint32_t receivers = 0, senders = 0;
    r.rx_min = r.tx_min = 1e300;
    for (std::uint32_t h = 0; h < sim.hosts(); ++h) {
        const auto& now = sim.host_stats()[h];
        const auto& before = at_start[h];
        double rx = seconds > 0 ? static_cast<double>(now.rx_payload - before.rx_payload) * 8 / seconds / 1e9 : 0;
        double tx = seconds > 0 ? static_cast<double>(now.tx_payload - before.tx_payload) * 8 / seconds / 1e9 : 0;
        r.rx_gbps.push_back(rx);
        r.tx_gbps.push_back(tx);
        if (now.rx_payload) {
            ++receivers;
            rx_sum += rx;
            r.rx_min = std::min(r.rx_min, rx);
            r.rx_max = std::max(r.rx_max, rx);
        }
        if (now.tx_payload) {
            ++senders;
            tx_sum += tx;
            r.tx_min = std::min(r.tx_min, tx);
            r.tx_max = std::max(r.tx_max, tx);
        }
    }
    r.rx_avg = receivers ? rx_sum / receivers : 0;
    r.tx_avg = senders ? tx_sum / senders : 0;
    if (!receivers) r.rx_min = 0;
    if (!senders) r.tx_min = 0;
    r.aggregate_gbps = rx_sum;
    r.effective_gbps = effective_bandwidth_gbps(options.ib, traffic.message_bytes, sim.fastest_host_link_gbps());
    r.ports = sim.port_stats();
    r.packet_latency = sim.packet_latency();
    r.message_latency = sim.message_latency();
    r.events = sim.events();
    r.threads = sim.threads();
    r.windows = sim.window_stats();
    r.flit_hops = sim.flit_hops();
    r.messages_in_flight = sim.messages_in_flight();
    return r;
}

} // namespace evb::netsim
