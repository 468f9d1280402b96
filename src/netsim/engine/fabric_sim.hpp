// The flit-level InfiniBand fabric simulator (thesis 3.4.2, paper 001): host adapters that cut
// messages into MTU packets and flits, links with serialisation and latency, credit-based flow
// control per VL, input-buffered switches with VL and round-robin output arbitration, virtual
// cut-through and LFT forwarding. One engine, three granularities:
//   flit        one event per flit per hop (the reference);
//   aggregated  one event per k flits per hop (the thesis "fast model": a hop forwards a chunk
//               only once all of it has arrived, credits return per chunk);
//   packet      one event per packet per hop with the flit-exact cut-through timing computed
//               (VCT never stalls a started packet, so its flits stream at line rate) and credits
//               returned as per-flit ramps. A packet enters the next switch by an event once
//               its first flit is in and switched, and joins its input queue there; only a
//               message's last packet has an event at its host.
// Time runs in windows of the smallest link or credit latency: what crosses a link between
// switches is known at its other end by the window's end (SimPart::window_ps).
// The fabric is elements, each owning its state in files of its own: the host adapters
// (host_adapters), the switches (switches) and the links with their flow control (links), over
// the packets in flight (sim_packets); they share a part's clock and event queue (fabric_part),
// and are the parts of one object (fabric_elements).
// FabricSim builds them, runs the events, and is what its callers see.
#pragma once
#include "netsim/engine/fabric_elements.hpp"
#include "netsim/engine/sim_model.hpp"
#include "core/index_pool.hpp"
#include "core/latency_histogram.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/fabric/routing.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace evb::netsim {

class FabricSim;

// What runs on the hosts: traffic injectors, and the event-building units (drivers/sim).
class SimApp {
public:
    virtual ~SimApp() = default;
    virtual void start(FabricSim& sim) = 0;
    // The last byte of `m` arrived at m.dst.
    virtual void delivered(FabricSim& sim, const SimMessage& m) = 0;
    // m.src's adapter has the ACK of `m` (RC: the sender may reuse its buffer): the ACK left m.dst
    // at delivery and crossed the path back unloaded (HostAdapters::ack_ps; ACKs are small and
    // not simulated as traffic).
    virtual void acknowledged(FabricSim& /*sim*/, const SimMessage& /*m*/) {}
    // Whether acknowledged is wanted (an ACK is an event: traffic injectors do without).
    virtual bool wants_acks() const { return false; }
    virtual void timer(FabricSim& /*sim*/, std::uint32_t /*host*/, std::uint64_t /*tag*/) {}
};

struct SimPortStats {
    std::uint32_t device = 0, port = 0;
    std::uint64_t tx_bytes = 0, tx_packets = 0, tx_blocks = 0;
    std::int64_t xmit_wait_ps = 0; // time with a packet ready but no credits (PortXmitWait)
};

// What the simulator's own tables take for `topology`: the forwarding tables, 2 B per switch and
// LID (the one part that grows as hosts squared: 4104 hosts on 36-port switches, 7.3 MiB), and
// about 1 KiB per port (its queues, credits and statistics on every VL).
std::uint64_t routing_table_bytes(const Topology& topology);
std::uint64_t simulator_bytes(const Topology& topology);

// What the caller keeps besides: `per_host` bytes per host and `per_pair` per ordered pair of
// hosts, and a name for them ("the event builder's units").
struct HostState {
    std::uint64_t fixed = 0, per_host = 0, per_pair = 0;
    std::string what;
};

// Makes `options` refuse, before routing and naming the estimate, a fabric whose simulation
// would need more than `memory` bytes (0: MemAvailable now).
void limit_to_simulator(FabricOptions& options, std::uint64_t memory, HostState state = {});

class FabricSim {
public:
    // Throws std::invalid_argument on bad parameters (IbParams::validate, aggregation 0).
    FabricSim(const Topology& topology, const Routing& routing, SimOptions options);
    // Not copied: its elements read the options it holds in place.
    FabricSim(const FabricSim&) = delete;
    FabricSim& operator=(const FabricSim&) = delete;

    std::uint32_t hosts() const { return adapters().count(); }
    Picoseconds now() const { return Picoseconds(part().now); }
    const SimOptions& options() const { return options_; }
    const Topology& topology() const { return topology_; }

    // Queue `bytes` from host src to host dst now; injected after the host latency.
    void post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag) { adapters().post(src, dst, bytes, tag); }
    void set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag);

    // Runs `app` (started on the first call) until no event is left or simulated time passes
    // `until`; call again with a later `until` to continue.
    void run(SimApp& app, Picoseconds until);
    // True when no event is left: run() has nothing more to do.
    bool idle() const { return part().queue.empty() && !links().credits_pending(); }
    // Throws SimCheckError unless every credit is back, no packet or message is in flight.
    void verify_quiescent() const;

    // As of now: in a callback, what arrived before this instant; after run(), up to `until`.
    const std::vector<SimHostStats>& host_stats() const { return adapters().stats(part().arrived_by()); }
    std::vector<SimPortStats> port_stats() const; // cabled ports only
    const LatencyHistogram& packet_latency() const { return adapters().packet_latency(part().arrived_by()); }
    const LatencyHistogram& message_latency() const { return adapters().message_latency(); }
    std::uint64_t events() const { return part().events; }
    std::uint64_t flit_hops() const;
    std::uint64_t messages_in_flight() const { return adapters().messages_in_flight(); }
    // The data rate of host `h`'s link, Gb/s; the fastest host link; the slowest link.
    double host_link_gbps(std::uint32_t h) const { return links().times(adapters().port(h)).gbps; }
    double fastest_host_link_gbps() const;
    double slowest_link_gbps() const { return links().slowest_gbps(); }
    // "100 Gb/s", or each rate with its cables: "100 Gb/s x 64, 200 Gb/s x 32".
    std::string link_rates() const { return links().rates(); }
    // Credit ramps held for all links: bounded by the credits in flight, however long the run.
    std::size_t ramp_entries() const { return links().ramp_entries(); }
    // Packets kept to be counted at their arrival (packet mode): bounded by those on host links,
    // and per host at most HostCounters::batch past ones.
    std::size_t arriving_entries() const { return adapters().arriving_entries(); }

private:
    struct Timer {
        std::uint32_t host;
        std::uint64_t tag;
    };
    SimPart& part() { return fabric_; }
    const SimPart& part() const { return fabric_; }
    const SimPackets& packets() const { return fabric_; }
    Links& links() { return fabric_; }
    const Links& links() const { return fabric_; }
    Switches& switches() { return fabric_; }
    HostAdapters& adapters() { return fabric_; }
    const HostAdapters& adapters() const { return fabric_; }
    template <Granularity G>
    void run_events(std::int64_t until);
    template <Granularity G>
    void dispatch(const SimEvent& e);
    template <Granularity G>
    void deliver(std::uint32_t packet);

    const Topology& topology_;
    SimOptions options_;
    FabricElements fabric_;
    IndexPool<Timer> timers_;
    IndexPool<SimMessage> acks_; // delivered, their ACK on its way
    SimApp* app_ = nullptr;
    bool started_ = false;
};

} // namespace evb::netsim
