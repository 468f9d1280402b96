#include "netsim/engine/sim_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace evb::netsim {
std::string port_name(const Topology& t, const SimPortStats& p) {
    return t.device(p.device).name + ":" + std::to_string(ib_port(t.device(p.device), p.port));
}

void print_port_table(std::ostream& out, const Topology& t, std::vector<SimPortStats> ports, Picoseconds simulated, bool all_ports) {
    std::sort(ports.begin(), ports.end(), [](const auto& a, const auto& b) {
        return a.xmit_wait_ps != b.xmit_wait_ps ? a.xmit_wait_ps > b.xmit_wait_ps : a.tx_bytes > b.tx_bytes;
    });
    if (!all_ports && ports.size() > 8) ports.resize(8);
    fmt::print(out, "{:>24} {:>14} {:>10} {:>12} {:>8}\n", "port", "tx_bytes", "tx_Gb/s", "xmit_wait_us", "wait_%");
    const double secs = simulated.seconds();
    for (const auto& p : ports)
        fmt::print(out, "{:>24} {:>14} {:>10.2f} {:>12.3f} {:>8.2f}\n", port_name(t, p), p.tx_bytes,
                   secs > 0 ? static_cast<double>(p.tx_bytes) * 8 / secs / 1e9 : 0, static_cast<double>(p.xmit_wait_ps) / 1e6,
                   secs > 0 ? 100.0 * static_cast<double>(p.xmit_wait_ps) * 1e-12 / secs : 0);
}

nlohmann::json ports_json(const Topology& t, const std::vector<SimPortStats>& ports) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& p : ports)
        out.push_back(
            {{"port", port_name(t, p)}, {"tx_bytes", p.tx_bytes}, {"tx_packets", p.tx_packets}, {"xmit_wait_ps", p.xmit_wait_ps}});
    return out;
}

void print_window_stats(std::ostream& out, const FabricSim::WindowStats& w, std::uint32_t threads, std::uint64_t events) {
    if (threads <= 1 || w.windows == 0) return;
    const double thread_seconds = w.busy_seconds + w.wait_seconds, windows = static_cast<double>(w.windows);
    fmt::print(out,
               "# {} windows, {:.0f} events per window; per window {:.2f} us of events per thread, {:.2f} us waiting for the other "
               "threads ({:.0f}% of their time), {:.2f} us handing over (one thread)\n",
               w.windows, static_cast<double>(events) / windows, w.busy_seconds / threads / windows * 1e6,
               w.wait_seconds / threads / windows * 1e6, thread_seconds > 0 ? 100 * w.wait_seconds / thread_seconds : 0,
               w.handover_seconds / windows * 1e6);
}

void print_traffic_result(std::ostream& out, const Topology& t, const TrafficRunResult& r, bool all_ports) {
    const double eff = r.effective_gbps;
    fmt::print(out, "{:>10} {:>9} {:>9} {:>9} {:>9}\n", "Gb/s", "avg", "min", "max", "avg/beff");
    fmt::print(out, "{:>10} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.4f}\n", "rx/host", r.rx_avg, r.rx_min, r.rx_max, eff > 0 ? r.rx_avg / eff : 0);
    fmt::print(out, "{:>10} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.4f}\n", "tx/host", r.tx_avg, r.tx_min, r.tx_max, eff > 0 ? r.tx_avg / eff : 0);
    fmt::print(out, "# aggregate {:.1f} Gb/s; b_eff (eq. 2.14) {:.3f} Gb/s per link; window {:.3f}..{:.3f} us\n", r.aggregate_gbps, eff,
               r.window_start.microseconds(), r.window_end.microseconds());
    const auto& pl = r.packet_latency;
    fmt::print(out,
               "# packet latency us: avg {:.3f} p50 {:.3f} p99 {:.3f} max {:.3f} ({} packets); message latency avg {:.3f} p99 {:.3f}\n",
               pl.mean_us(), pl.percentile_us(50), pl.percentile_us(99), pl.max_us(), pl.count(), r.message_latency.mean_us(),
               r.message_latency.percentile_us(99));
    print_port_table(out, t, r.ports, r.simulated, all_ports);
    const double sim_us = r.simulated.microseconds();
    fmt::print(
        out, "# simulated {:.3f} us in {:.3f} s wall on {} thread{}: {:.3g} events/s, {:.3g} flit-hops/s, {:.3g} simulated us per wall s\n",
        sim_us, r.wall_seconds, r.threads, r.threads == 1 ? "" : "s",
        r.wall_seconds > 0 ? static_cast<double>(r.events) / r.wall_seconds : 0,
        r.wall_seconds > 0 ? static_cast<double>(r.flit_hops) / r.wall_seconds : 0, r.wall_seconds > 0 ? sim_us / r.wall_seconds : 0);
    print_window_stats(out, r.windows, r.threads, r.events);
}

nlohmann::json traffic_result_json(const Topology& t, const TrafficRunResult& r) {
    const nlohmann::json ports = ports_json(t, r.ports);
    return {{"window_start_ps", r.window_start.count()},
            {"window_end_ps", r.window_end.count()},
            {"rx_gbps", {{"avg", r.rx_avg}, {"min", r.rx_min}, {"max", r.rx_max}, {"per_host", r.rx_gbps}}},
            {"tx_gbps", {{"avg", r.tx_avg}, {"min", r.tx_min}, {"max", r.tx_max}, {"per_host", r.tx_gbps}}},
            {"aggregate_gbps", r.aggregate_gbps},
            {"effective_gbps", r.effective_gbps},
            {"packet_latency",
             {{"mean_us", r.packet_latency.mean_us()},
              {"p50_us", r.packet_latency.percentile_us(50)},
              {"p99_us", r.packet_latency.percentile_us(99)},
              {"max_us", r.packet_latency.max_us()},
              {"histogram", r.packet_latency.to_json()}}},
            {"message_latency", {{"mean_us", r.message_latency.mean_us()}, {"p99_us", r.message_latency.percentile_us(99)}}},
            {"ports", ports},
            {"simulated_ps", r.simulated.count()},
            {"wall_seconds", r.wall_seconds},
            {"sim_threads", r.threads},
            {"events", r.events},
            {"flit_hops", r.flit_hops},
            {"messages_in_flight", r.messages_in_flight}};
}

} // namespace evb::netsim
