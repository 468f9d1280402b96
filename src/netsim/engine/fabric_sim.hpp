// The flit-level InfiniBand fabric simulator (thesis 3.4.2, paper 001): host adapters that cut
// messages into MTU packets and flits, links with serialisation and latency, credit-based flow
// control per VL, input-buffered switches with VL and round-robin output arbitration, virtual
// cut-through and LFT forwarding. One engine, three granularities:
//   flit        one event per flit per hop (the reference);
//   aggregated  one event per k flits per hop (the thesis "fast model": a hop forwards a chunk
//               only once all of it has arrived, credits return per chunk);
//   packet      one event per packet per hop with the flit-exact cut-through timing computed
//               (VCT never stalls a started packet, so its flits stream at line rate) and credits
//               returned as per-flit ramps. A packet enters the next switch by an event, a
//               link's latency after it starts (a link keeps its order), and joins its input
//               queue there; only a message's last packet has an event at its host.
#pragma once
#include "netsim/engine/adapter_flows.hpp"
#include "netsim/engine/event_queue.hpp"
#include "netsim/engine/host_counters.hpp"
#include "netsim/engine/host_latency.hpp"
#include "core/huge_page_allocator.hpp"
#include "core/huge_page_arena.hpp"
#include "core/inline_ring.hpp"
#include "netsim/engine/ib_params.hpp"
#include "netsim/engine/link_credits.hpp"
#include "netsim/engine/packet_timing.hpp"
#include "netsim/engine/port_counters.hpp"
#include "netsim/engine/switch_requests.hpp"
#include "core/index_pool.hpp"
#include "core/latency_histogram.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "core/ring_queue.hpp"
#include "netsim/fabric/routing.hpp"

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

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
};

// A broken invariant of the model (credits below zero, a buffer over capacity, lost flits).
struct SimCheckError : std::logic_error {
    using std::logic_error::logic_error;
};

struct SimMessage {
    std::uint32_t src = 0, dst = 0; // host indices (rank order of Topology::hosts())
    std::uint64_t bytes = 0, tag = 0;
    Picoseconds posted{}, delivered{};
};

class FabricSim;

// What runs on the hosts: traffic injectors, and the event-building units (drivers/sim).
class SimApp {
public:
    virtual ~SimApp() = default;
    virtual void start(FabricSim& sim) = 0;
    // The last byte of `m` arrived at m.dst (RC semantics: the sender may reuse its buffer).
    virtual void delivered(FabricSim& sim, const SimMessage& m) = 0;
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
    // Not copied: its packet timing reads the options it holds in place.
    FabricSim(const FabricSim&) = delete;
    FabricSim& operator=(const FabricSim&) = delete;

    std::uint32_t hosts() const { return static_cast<std::uint32_t>(host_port_.size()); }
    Picoseconds now() const { return Picoseconds(now_); }
    const SimOptions& options() const { return options_; }
    const Topology& topology() const { return topology_; }

    // Queue `bytes` from host src to host dst now; injected after the host latency.
    void post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag);
    void set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag);

    // Runs `app` (started on the first call) until no event is left or simulated time passes
    // `until`; call again with a later `until` to continue.
    void run(SimApp& app, Picoseconds until);
    // True when no event is left: run() has nothing more to do.
    bool idle() const { return queue_.empty(); }
    // Throws SimCheckError unless every credit is back, no packet or message is in flight.
    void verify_quiescent() const;

    // As of now: in a callback, what arrived before this instant; after run(), up to `until`.
    const std::vector<SimHostStats>& host_stats() const {
        return hosts_.stats(arrived_by(), [this](std::uint32_t h) { return in_flight_payload(h); });
    }
    std::vector<SimPortStats> port_stats() const; // cabled ports only
    const LatencyHistogram& packet_latency() const { return hosts_.packet_latency(arrived_by()); }
    const LatencyHistogram& message_latency() const { return hosts_.message_latency(); }
    std::uint64_t events() const { return events_; }
    std::uint64_t flit_hops() const;
    std::uint64_t messages_in_flight() const { return live_messages_; }
    // The data rate of host `h`'s link, Gb/s; the fastest host link; the slowest link.
    double host_link_gbps(std::uint32_t h) const { return link(host_port_.at(h)).gbps; }
    double fastest_host_link_gbps() const;
    double slowest_link_gbps() const;
    // "100 Gb/s", or each rate with its cables: "100 Gb/s x 64, 200 Gb/s x 32".
    std::string link_rates() const;
    // Credit ramps held for all links: bounded by the credits in flight, however long the run.
    std::size_t ramp_entries() const { return credits_.ramp_entries(); }
    // Packets kept to be counted at their arrival (packet mode): bounded by those on host links,
    // and per host at most HostCounters::batch past ones.
    std::size_t arriving_entries() const { return hosts_.arriving_entries(); }

private:
    static constexpr std::uint32_t none = UINT32_MAX;
    static constexpr std::uint32_t max_hops = 16;
    static constexpr std::uint32_t max_paces = 4;
    // enter: packet mode, a packet reaches the next switch (a link crossing is an event, so that the
    // fabric can be cut into parts at links).
    enum Kind : std::uint8_t { arrive, tx_done, wake, head_ready, message_ready, deliver, timer_fired, enter };

    // 16 B, four to a line. A new head asks its output from the entry alone: the output as a
    // port number on the queue's switch, and the packet's need (0: above 16 bits, read from the
    // packet), so that the packet's line, a miss behind the entry's, is first read at its grant.
    struct QueueEntry {
        std::uint32_t packet;
        std::uint16_t out_local, need;
        std::int64_t ready;
    };
    static_assert(sizeof(QueueEntry) == 16);
    // One cache line: what arbitration and sending a packet read. Its link's times are shared by
    // all links of its rate (LinkTimes), its counters live beside (PortCounters): a second line
    // would be a miss per packet.
    struct alignas(64) Port {
        std::uint32_t device = 0;
        std::uint32_t peer = none; // global index of the cabled port
        std::uint32_t host = none; // host index if this port belongs to a host
        std::uint32_t peer_host = none; // host index of the peer port if it belongs to a host
        std::uint16_t local = 0; // port number on its device, from 0
        std::uint16_t asking = 0; // bit v: VL v has requesters (a switch's inputs, an adapter's flows)
        // output side
        bool transmitting = false, waiting_chunk = false, dirty = false;
        bool free_when_sent = false; // packet mode: its packet into a host is freed at tx_done (see deliver_at)
        std::uint8_t rr_vl = 0; // the VL granted last
        std::uint8_t rate = 0; // its link's times: link_times_[rate] (0: not cabled)
        std::uint8_t cur_hop = 0; // link index the packet is on (below max_hops)
        bool behind_known = false; // `behind` holds the entry behind the packet it sends
        std::uint32_t cur_packet = none;
        std::uint32_t cur_queue = none; // input queue (port * vls + vl) of a switch, none for a host
        std::uint32_t next_chunk = 0;
        std::int64_t wake_at = -1;
        // The entry behind the packet it sends, in that packet's input queue, as the grant read it:
        // the new head once the packet is sent, read here instead of from the ring (a miss by then).
        QueueEntry behind{};
    };
    static_assert(sizeof(Port) == 64);
    using LinkTimes = PacketTiming::LinkTimes;
    const LinkTimes& link(std::uint32_t port) const { return timing_.times(ports_[port].rate); }
    // Packet mode counts a packet's bytes and blocks as it starts (its line is read then, not at
    // tx_done); sent_counters leaves out the packet still being sent.
    PortCounters::Sent sent_counters(std::uint32_t port) const;
    using OutputVl = LinkCredits::OutputVl;
    struct alignas(32) InputQueue { // FIFO ring per (port, VL); its capacity is 0 or a power of two
        QueueEntry* ring = nullptr; // from arena_
        std::uint32_t capacity = 0, head = 0, size = 0;
        std::uint32_t first_port = 0; // its switch's first port: an entry's output is first_port + out_local
        std::uint16_t in_local = 0; // the input's port number, its requester bit at an output
        std::uint8_t vl = 0; // vl_of(its index), kept so that a new head's request divides nothing
        std::uint32_t out(const QueueEntry& e) const { return first_port + e.out_local; }
    };
    struct Message {
        std::uint32_t src, dst, next = none;
        std::uint64_t bytes, tag, delivered = 0;
        std::int64_t posted;
    };
    // What an arrive event (flit and aggregated modes) and a timer carry beyond the event's word.
    struct Arrival {
        std::uint32_t in, packet, hop, chunk;
    };
    struct Timer {
        std::uint32_t host;
        std::uint64_t tag;
    };
    // One cache line: a packet is touched at every hop, far apart in time. What only flit and
    // aggregated modes (chunks arrived per hop) or slower links (more paces) need lives beside.
    // Creation time and message stay in the line too: in an array beside, they were a second
    // miss per hop.
    struct Pace {
        std::int64_t head;
        double gbps;
    };
    struct alignas(64) Packet {
        std::uint32_t message, dst_host, dst_lid, wire, payload, blocks, chunks;
        std::uint8_t vl, pace_count;
        bool last_of_message; // packet mode: only it has an event at delivery
        std::uint8_t hop; // the link it came in on at the switch that queues it
        std::int64_t created;
        // Packet mode, at the input of the hop it crosses next: when its last flit is wholly in,
        // and when its other flits are: flit i at the latest of head + serialisation of 64 i B
        // at gbps over its paces (one per slower link crossed; see packet_done).
        std::int64_t last_in;
        Pace pace; // the first; the others in extra_paces_
    };
    Pace& pace(std::uint32_t packet, std::uint32_t k) {
        return k == 0 ? packets_[packet].pace : extra_paces_[std::size_t{packet} * (max_paces - 1) + k - 1];
    }
    std::uint16_t* arrived(std::uint32_t packet) { return &arrived_[std::size_t{packet} * max_hops]; } // flit, aggregated

    // The granularity is chosen once per run: the paths that differ between packet mode (a
    // packet sent whole) and flit and aggregated modes (a packet sent in chunks) are compiled for
    // each, and run() enters the one of its mode.
    enum class Granularity : bool { chunks, packets };
    template <Granularity G>
    void run_events(std::int64_t until);
    template <Granularity G>
    void dispatch(const SimEvent& e);
    // Flit and aggregated modes: a chunk is wholly in at input `in`. (Packet mode has no arrival
    // events: send_packet queues a packet at the next switch or counts it at its host.)
    void on_arrive(std::uint32_t in, std::uint32_t packet, std::uint32_t hop, std::uint32_t chunk);
    template <Granularity G>
    void on_tx_done(std::uint32_t out);
    void on_message_ready(std::uint32_t message);
    template <Granularity G>
    void deliver_packet(std::uint32_t packet);
    // Packet mode: packet `pk` reaches its host at `at` (its last flit in).
    void deliver_at(std::uint32_t pk, std::int64_t at);
    // The arrivals counted as of now: a callback at this instant runs before packets arriving at
    // it (their events, scheduled later, would have come after); after run(), everything up to
    // its end has arrived.
    std::int64_t arrived_by() const { return running_ ? now_ - 1 : now_; }
    // The payload of the packet host h's adapter is still sending: counted as it started (see
    // grant_flow), not yet sent.
    std::uint32_t in_flight_payload(std::uint32_t h) const;
    // A packet into switch input `in`, at `hop`, is ready to be arbitrated at `ready`.
    void enqueue(std::uint32_t in, std::uint32_t packet, std::uint32_t hop, std::int64_t ready);

    // The head of `queue` asks its output, or waits until it is ready: from its ring, or from the
    // copy `head` of its entry that the output sending the packet before it keeps.
    void make_head_ready(std::uint32_t queue);
    void make_head_ready(std::uint32_t queue, const InputQueue& iq, const QueueEntry& head);
    // A switch's input port asks output `out` for its head packet of `need` blocks.
    void request(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need, std::uint32_t packet);
    void arbitrate(std::uint32_t out); // at the end of the current instant
    // The round robin over VLs after granting `vl`: first those of `asking` above it, then the
    // others (arbitrate_now); and the VL it visits first.
    static std::uint32_t vls_above(std::uint32_t asking, std::uint32_t vl) { return asking & ~((2u << vl) - 1); }
    static std::uint32_t first_vl_after(std::uint32_t asking, std::uint32_t vl) {
        const std::uint32_t above = vls_above(asking, vl);
        return static_cast<std::uint32_t>(std::countr_zero(above ? above : asking));
    }
    // What the next arbitration of output `out` will read first, asked from memory at a grant,
    // a packet's time before it: its credit lines on the VL it visits first, and that VL's next
    // requester's packet (a switch) or next flow (an adapter).
    void prefetch_next_grant(std::uint32_t out, std::uint32_t vl);
    template <Granularity G>
    void arbitrate_dirty_ports();
    template <Granularity G>
    void arbitrate_now(std::uint32_t out);
    template <Granularity G>
    void grant_flow(std::uint32_t out, std::uint32_t vl, std::size_t flow, std::uint32_t need);
    template <Granularity G>
    void grant_input(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need);
    template <Granularity G>
    void start_packet(std::uint32_t out);
    void send_chunk(std::uint32_t out); // flit and aggregated modes: the port's next chunk
    void send_packet(std::uint32_t out); // packet mode: the whole packet
    // `wire`: the packet's time on out's link, `last`: its last flit's.
    std::int64_t packet_done(std::uint32_t out, std::uint32_t packet, std::int64_t wire, std::int64_t last);

    std::int64_t time_credits_reach(std::uint32_t out, std::uint32_t vl, std::int64_t need) const {
        return credits_.time_reached(queue_index(out, vl), need, now_);
    }
    LinkCredits::Cover credits_cover(std::uint32_t out, std::uint32_t vl) { return {credits_, queue_index(out, vl), now_}; }
    // Credits for `blocks` of input `in`'s buffer go back to its peer: all at `base`, or the
    // i-th at base + min((i + 1) step, total) when total > 0.
    void return_credits(std::uint32_t in, std::uint32_t vl, std::int64_t base, std::uint32_t blocks, std::int64_t total = 0,
                        std::int64_t step = 1);
    // After a credits_cover of (out, vl) at this instant, which folded the complete ramps.
    void take_credits(std::uint32_t out, std::uint32_t vl, std::uint32_t blocks);
    // Credits on their way to output `out`, which waits for credits: only its wake may move earlier.
    void wake_earlier(std::uint32_t out, std::uint32_t vl);

    // Whether output `out` is idle with requesters, waiting for credits.
    bool is_waiting(std::size_t out) const { return port_counters_.is_waiting(out); }
    // A switch output's requests on `vl` (a host adapter's are its flows).
    SwitchRequests::Output requests(std::uint32_t out, std::uint32_t vl) {
        return requests_.output(ports_[out].device, ports_[out].local * vls_ + vl);
    }

    template <Granularity G>
    std::uint32_t alloc_packet();
    // Per (port, VL) state is laid out VL by VL, so the VLs that carry traffic (often one of four)
    // are dense in memory (interleaved, idle VLs would share their cache lines). A queue's port and VL are
    // a division apart: the paths run per packet know the VL (input_of), the others divide.
    std::uint32_t queue_index(std::uint32_t port, std::uint32_t vl) const { return vl * port_count_ + port; }
    std::uint32_t input_of(std::uint32_t queue, std::uint32_t vl) const { return queue - vl * port_count_; }
    std::uint32_t port_of(std::uint32_t queue) const { return queue % port_count_; }
    std::uint32_t vl_of(std::uint32_t queue) const { return queue / port_count_; }
    // With checks only (an occupancy is counted for them alone): inline, so that runs without
    // checks pay a test, not a call, per packet and hop.
    void occupancy_change(std::uint32_t queue, std::int64_t blocks) {
        if (options_.checks) check_occupancy(queue, blocks);
    }
    void check_occupancy(std::uint32_t queue, std::int64_t blocks);
    // With checks: an adapter's count of short flows on `vl` is what its flows hold.
    void check_short_flows(std::uint32_t port, std::uint32_t vl);
    [[noreturn]] void check_failed(const std::string& what) const;

    const Topology& topology_;
    const Routing& routing_;
    // Memory read per packet and hop is in 2 MiB huge pages: the input queues' rings side by
    // side in this arena (declared before them: destroyed after), the per-port and per-packet
    // tables below in HugePageVectors: the gain is the TLB's, and most of it comes only once
    // nearly all the hot state is in huge pages.
    HugePageArena arena_;
    SimOptions options_;
    std::uint32_t vls_;
    std::uint32_t port_count_ = 0; // ports_.size(), the stride between VLs in per (port, VL) state
    std::int64_t link_ps_, credit_ps_, switch_ps_, capacity_;
    std::vector<std::uint32_t> port_base_; // per device: first global port index
    std::vector<std::uint32_t> host_port_; // per host: its port
    std::vector<std::uint32_t> host_lid_;
    std::vector<std::uint32_t> host_of_lid_;
    HugePageVector<Port> ports_;
    PacketTiming timing_; // link times by rate, in the order first cabled; 0: none
    PortCounters port_counters_; // per port, with the bit of each waiting for credits
    LinkCredits credits_; // per (port, VL), with the outputs' round robin
    HugePageVector<InputQueue> queues_;
    std::vector<std::int64_t> occupancy_; // per (port, VL), with checks
    SwitchRequests requests_; // per switch output and VL: the inputs asking
    std::vector<std::uint32_t> dirty_; // outputs to arbitrate at the end of this instant: the first dirty_count_
    std::vector<std::uint32_t> dirty_batch_; // the batch deciding (both sized to all ports: no check per append)
    std::uint32_t dirty_count_ = 0;
    std::vector<AdapterFlows> flows_; // per (host, VL): destinations with messages
    HugePageVector<Packet> packets_;
    HugePageVector<Pace> extra_paces_; // per packet: max_paces - 1
    std::vector<std::uint16_t> arrived_; // per packet and hop: chunks arrived (flit, aggregated modes)
    std::vector<std::uint32_t> free_packets_;
    IndexPool<Message> messages_;
    IndexPool<Arrival> arrivals_;
    IndexPool<Timer> timers_;
    HostCounters hosts_;
    bool running_ = false;
    EventQueue queue_;
    SimApp* app_ = nullptr;
    bool started_ = false;
    std::int64_t now_ = 0;
    std::uint64_t events_ = 0, rng_state_, live_messages_ = 0, live_packets_ = 0;
};

} // namespace evb::netsim
