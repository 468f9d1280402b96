// The flit-level InfiniBand fabric simulator (thesis 3.4.2, paper 001): host adapters that cut
// messages into MTU packets and flits, links with serialisation and latency, credit-based flow
// control per VL, input-buffered switches with VL and round-robin output arbitration, virtual
// cut-through and LFT forwarding. One engine, three granularities:
//   flit        one event per flit per hop (the reference);
//   aggregated  one event per k flits per hop (the thesis "fast model": a hop forwards a chunk
//               only once all of it has arrived, credits return per chunk);
//   packet      one event per packet per hop with the flit-exact cut-through timing computed
//               (VCT never stalls a started packet, so its flits stream at line rate) and credits
//               returned as per-flit ramps. A packet joins the next switch's input queue as it
//               is sent, and asks its output once its first flit is in and switched (an event
//               only if it is the head by then); only a message's last packet has an event at
//               its host.
// Time runs in windows of the smallest link or credit latency: what crosses a link between
// switches is known at its other end by the window's end (SimPart::window_ps). So the fabric can
// be cut into parts (SimOptions::parts, partition_fabric) that run a window apart and hand over
// at its end what crossed the cut (part_mail); ACKs, and credits between switches, take effect at
// a window's end in every run, in an order that does not depend on the cut.
// The fabric is elements, each owning its state in files of its own: the host adapters
// (host_adapters), the switches (switches) and the links with their flow control (links), over
// the packets in flight (sim_packets); they share a part's clock and event queue (fabric_part),
// and are the parts of one object (fabric_elements).
// FabricSim builds them, runs the events, and is what its callers see.
#pragma once
#include "netsim/engine/fabric_elements.hpp"
#include "netsim/engine/round_runner.hpp"
#include "netsim/engine/sim_model.hpp"
#include "core/index_pool.hpp"
#include "core/latency_histogram.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/fabric/routing.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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
    // A timer of the whole fabric (set_global_timer): every part has run up to its time.
    virtual void global_timer(FabricSim& /*sim*/, std::uint64_t /*tag*/) {}
};
// A host's callbacks (delivered, acknowledged, timer) may post and set timers for hosts of their
// own part only (with one part: any host); start and global_timer, for any host.

struct SimPortStats {
    std::uint32_t device = 0, port = 0;
    std::uint64_t tx_bytes = 0, tx_packets = 0, tx_blocks = 0;
    std::int64_t xmit_wait_ps = 0; // time with a packet ready but no credits (PortXmitWait)
};

// What the simulator's own tables take for `topology`: the forwarding tables, 2 B per switch and
// LID (the one part that grows as hosts squared: 4104 hosts on 36-port switches, 7.3 MiB), and
// about 1 KiB per port (its queues, credits and statistics on every VL) in each of the `parts`
// the fabric is cut into (each part holds every port's tables; the routing tables are shared).
std::uint64_t routing_table_bytes(const Topology& topology);
std::uint64_t simulator_bytes(const Topology& topology, std::uint32_t parts = 1);

// What the caller keeps besides: `per_host` bytes per host and `per_pair` per ordered pair of
// hosts, and a name for them ("the event builder's units").
struct HostState {
    std::uint64_t fixed = 0, per_host = 0, per_pair = 0;
    std::string what;
};

// Makes `options` refuse, before routing and naming the estimate, a fabric whose simulation
// would need more than `memory` bytes (0: MemAvailable now), cut into `parts`.
void limit_to_simulator(FabricOptions& options, std::uint64_t memory, HostState state = {}, std::uint32_t parts = 1);

class FabricSim {
public:
    // Throws std::invalid_argument on bad parameters (checked(): IbParams::validate, aggregation, parts).
    FabricSim(const Topology& topology, const Routing& routing, SimOptions options);
    // Not copied: its elements read the options it holds in place.
    FabricSim(const FabricSim&) = delete;
    FabricSim& operator=(const FabricSim&) = delete;

    std::uint32_t hosts() const { return first().adapters().count(); }
    // In a host's callback, its part's time; else the time all parts have run to.
    Picoseconds now() const { return Picoseconds(current_ ? current_->fabric.now : now_); }
    const SimOptions& options() const { return options_; }
    const Topology& topology() const { return topology_; }
    // The parts the fabric runs in (SimOptions::parts, or fewer), and the part of host `h`.
    std::uint32_t parts() const { return static_cast<std::uint32_t>(parts_.size()); }
    std::uint32_t threads() const { return threads_ ? threads_->threads() : 1; }
    std::uint32_t part_of_host(std::uint32_t h) const { return part_of_host_.empty() ? 0 : part_of_host_[h]; }

    // Queue `bytes` from host src to host dst now; injected after the host latency.
    void post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag);
    void set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag);
    // SimApp::global_timer(tag) once every part has run up to `at` (not before now), before any
    // event at `at`.
    void set_global_timer(Picoseconds at, std::uint64_t tag);

    // Runs `app` (started on the first call) until no event is left or simulated time passes
    // `until`; call again with a later `until` to continue.
    void run(SimApp& app, Picoseconds until);
    // True when no event is left: run() has nothing more to do.
    bool idle() const;
    // Throws SimCheckError unless every credit is back, no packet or message is in flight.
    void verify_quiescent() const;

    // As of now: in a callback, what arrived before this instant; after run(), up to `until`.
    const std::vector<SimHostStats>& host_stats() const;
    std::vector<SimPortStats> port_stats() const; // cabled ports only
    const LatencyHistogram& packet_latency() const;
    const LatencyHistogram& message_latency() const;
    std::uint64_t events() const;
    std::uint64_t flit_hops() const;
    std::uint64_t messages_in_flight() const;
    // The data rate of host `h`'s link, Gb/s; the fastest host link; the slowest link.
    double host_link_gbps(std::uint32_t h) const { return first().links().times(first().adapters().port(h)).gbps; }
    double fastest_host_link_gbps() const;
    double slowest_link_gbps() const { return first().slowest_gbps(); }
    // "100 Gb/s", or each rate with its cables: "100 Gb/s x 64, 200 Gb/s x 32".
    std::string link_rates() const { return first().rates(); }
    // Credit ramps held for all links: bounded by the credits in flight, however long the run.
    std::size_t ramp_entries() const;
    // Packets kept to be counted at their arrival (packet mode): bounded by those on host links,
    // and per host at most HostCounters::batch past ones.
    std::size_t arriving_entries() const;

    // How the parts ran: the windows closed and, with several threads, the threads' time running
    // events, waiting for one another at a window's end (thread-seconds), and the handover between
    // windows (one thread: what crossed the cut, global timers, finding the next window).
    struct WindowStats {
        std::uint64_t windows = 0;
        double busy_seconds = 0, wait_seconds = 0, handover_seconds = 0;
    };
    const WindowStats& window_stats() const { return window_stats_; }

private:
    struct Timer {
        std::uint32_t host;
        std::uint64_t tag;
    };
    // One part of the fabric as the driver runs it: its elements, and what its hosts wait for.
    struct Part {
        explicit Part(const SimOptions& o) : fabric(o) {}
        FabricElements fabric;
        IndexPool<Timer> timers;
        IndexPool<SimMessage> acks; // delivered, their ACK on its way
        Outbox<std::pair<std::int64_t, SimMessage>> acks_out; // sent in the window, in the order sent
        // What take_mail gathers from every part's outboxes, kept to be reused.
        std::vector<const CrossingPacket*> crossings_in;
        std::vector<std::pair<std::int64_t, SimMessage>> acks_in;
    };
    struct GlobalTimer {
        std::int64_t at;
        std::uint64_t seq, tag;
        // The heap's order: the earliest on top, ties in the order set.
        static bool later(const GlobalTimer& x, const GlobalTimer& y) { return y.at < x.at || (y.at == x.at && y.seq < x.seq); }
    };
    const FabricElements& first() const { return parts_.front()->fabric; }
    Part& part_of(std::uint32_t host, const char* what);
    template <Granularity G>
    void run_events(std::int64_t until);
    template <Granularity G>
    void run_part(Part& part, std::int64_t stop);
    template <Granularity G>
    void dispatch(Part& part, const SimEvent& e);
    template <Granularity G>
    void deliver(Part& part, std::uint32_t packet);
    std::int64_t next_event_time();
    // count(part) summed over the parts.
    template <class Count>
    std::uint64_t sum_over_parts(Count count) const {
        std::uint64_t n = 0;
        for (const auto& p : parts_) n += count(*p);
        return n;
    }
    void fire_global_timer();
    // The window is run in every part: the outboxes turn to the next one's, and whether the
    // last window left anything to take.
    bool close_window();
    // Part `self` takes what the last window left for it (its own credits too): what crossed takes effect.
    void take_mail(std::uint32_t self);

    const Topology& topology_;
    SimOptions options_;
    std::vector<std::unique_ptr<Part>> parts_;
    std::vector<std::uint32_t> part_of_host_; // empty: one part
    static thread_local Part* current_; // whose event this thread runs
    std::unique_ptr<RoundRunner> threads_; // with more than one thread
    std::vector<double> thread_busy_; // per thread, its time running events in the last window
    WindowStats window_stats_;
    std::chrono::steady_clock::time_point handover_from_{}; // the last window's end (threads)
    std::vector<GlobalTimer> global_timers_; // a heap, the earliest on top
    std::uint64_t global_timer_seq_ = 0, global_events_ = 0;
    std::int64_t now_ = 0;
    std::int64_t window_end_ = 0;
    bool window_open_ = false;
    bool mail_waiting_ = false; // the last window closed left something for a part to take
    // Several parts' counters, summed for host_stats, packet_latency and message_latency.
    mutable std::vector<SimHostStats> merged_stats_;
    mutable LatencyHistogram merged_packet_latency_, merged_message_latency_;
    SimApp* app_ = nullptr;
    bool started_ = false;
};

} // namespace evb::netsim
