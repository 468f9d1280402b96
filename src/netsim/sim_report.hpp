// Human table and JSON of a simulation run: per-host throughput, the busiest / most stalled
// ports (bytes, PortXmitWait-like stall time), packet latency, and the simulator's own speed.
#pragma once
#include "traffic_run.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb::netsim {

void print_traffic_result(std::ostream& out, const Topology& topology, const TrafficRunResult& r, bool all_ports);
nlohmann::json traffic_result_json(const Topology& topology, const TrafficRunResult& r);

} // namespace evb::netsim
