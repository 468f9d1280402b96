// The InfiniBand model's options for the fabric simulator: the link, credit and buffer
// parameters, the granularity events are taken at, the host latency and the seed; and the error
// a broken invariant of the model raises.
#pragma once
#include "netsim/engine/host_latency.hpp"
#include "netsim/engine/ib_params.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace evb::netsim {

enum class SimMode { flit, aggregated, packet };
SimMode parse_sim_mode(const std::string& name); // throws std::invalid_argument
std::string to_string(SimMode mode);

struct SimOptions {
    IbParams ib;
    SimMode mode = SimMode::packet;
    std::uint32_t aggregation = 16; // flits per event in aggregated mode
    HostLatency host_latency; // before a posted message may be injected
    std::uint64_t seed = 1;
    bool checks = false; // conservation checks on every credit and buffer change
    // Each link at the width and speed the topology gives ("4xHDR": 200 Gb/s), where it gives
    // one; ib.link_gbps for the others, and for all links when false.
    bool topology_rates = true;
    // The fabric cut into this many parts (fewer when it has fewer leaf switches), run apart
    // within each window of SimPart::window_ps and handing over at its end what crosses the cut:
    // every figure is the same for any count. Packet mode only.
    std::uint32_t parts = 1;
    // Threads that run the parts, each its share of them (at most `parts`).
    std::uint32_t threads = 1;
};

// `options` with flit mode as aggregation 1; throws std::invalid_argument on bad parameters
// (IbParams::validate, an aggregation outside 1..4096, parts outside 1..256 or above 1 but in
// flit or aggregated mode or without link and credit latencies).
SimOptions checked(SimOptions options);

// A broken invariant of the model (credits below zero, a buffer over capacity, lost flits).
struct SimCheckError : std::logic_error {
    using std::logic_error::logic_error;
};

} // namespace evb::netsim
