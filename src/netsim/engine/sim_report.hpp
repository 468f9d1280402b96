// Human table and JSON of a simulation run: per-host throughput, the busiest / most stalled
// ports (bytes, PortXmitWait-like stall time), packet latency, and the simulator's own speed.
#pragma once
#include "netsim/engine/traffic_run.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb::netsim {

// "leaf3:5": a port by device name and InfiniBand port number.
std::string port_name(const Topology& topology, const SimPortStats& port);
// The ports sorted by stall time (then bytes), the 8 most stalled unless all_ports.
void print_port_table(std::ostream& out, const Topology& topology, std::vector<SimPortStats> ports, Picoseconds simulated, bool all_ports);
nlohmann::json ports_json(const Topology& topology, const std::vector<SimPortStats>& ports);

// With more than one thread: the windows, events per window, and per window each thread's time
// running events and waiting for the others, and the handover's (FabricSim::WindowStats).
void print_window_stats(std::ostream& out, const FabricSim::WindowStats& w, std::uint32_t threads, std::uint64_t events);

void print_traffic_result(std::ostream& out, const Topology& topology, const TrafficRunResult& r, bool all_ports);
nlohmann::json traffic_result_json(const Topology& topology, const TrafficRunResult& r);

} // namespace evb::netsim
