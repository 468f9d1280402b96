// The links of the simulated fabric, and each cabled port's sending end: the packet an output
// sends and its arbitration over VLs (whose requesters its device, a switch or a host adapter,
// offers), the link's times at its rate, the flow control that lets a packet go (InfiniBand
// credits per VL: LinkCredits), the crossing to the peer by a timed event, and the port's
// counters. A packet is sent whole (packet mode) or in chunks (flit and aggregated modes).
#pragma once
#include "core/index_pool.hpp"
#include "netsim/engine/fabric_element.hpp"
#include "netsim/engine/fabric_part.hpp"
#include "netsim/engine/link_credits.hpp"
#include "netsim/engine/packet_timing.hpp"
#include "netsim/engine/part_mail.hpp"
#include "netsim/engine/port_counters.hpp"
#include "netsim/engine/sim_packets.hpp"
#include "netsim/fabric/topology.hpp"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

namespace evb::netsim {

class Links : public FabricElement<Links> {
public:
    static constexpr std::uint32_t none = SimPart::none;

    // 16 B, four to a line: a packet in a switch's input queue. A new head asks its output from
    // the entry alone: the output as a port number on the queue's switch, and the packet's need
    // (0: above 16 bits, read from the packet), so that the packet's line, a miss behind the
    // entry's, is first read at its grant.
    struct QueueEntry {
        std::uint32_t packet;
        std::uint16_t out_local, need;
        std::int64_t ready;
    };
    static_assert(sizeof(QueueEntry) == 16);
    // One cache line: what arbitration and sending a packet read. Its link's times are shared by
    // all links of its rate, its counters live beside (PortCounters): a second line would be a
    // miss per packet. Its device writes two things here, in the line the link reads next: the
    // VLs it has requesters on (`asking`), and at a grant the packet to send (cur_*, behind).
    struct alignas(64) Port {
        std::uint32_t device = 0;
        std::uint32_t peer = none; // global index of the cabled port
        std::uint32_t host = none; // host index if this port belongs to a host
        std::uint32_t peer_host = none; // host index of the peer port if it belongs to a host
        std::uint16_t local = 0; // port number on its device, from 0
        std::uint16_t asking = 0; // bit v: VL v has requesters (a switch's inputs, an adapter's flows)
        // output side
        bool transmitting = false, waiting_chunk = false, dirty = false;
        bool free_when_sent = false; // packet mode: its packet into a host is freed at tx_done (see HostAdapters::deliver_at)
        std::uint8_t rr_vl = 0; // the VL granted last
        std::uint8_t rate = 0; // its link's times (0: not cabled)
        std::uint8_t cur_hop = 0; // link index the packet is on (below SimPackets::max_hops)
        bool behind_known = false; // `behind` holds the entry behind the packet it sends
        std::uint32_t cur_packet = none;
        std::uint32_t cur_queue = none; // input queue (port * vls + vl) of a switch, none for a host
        std::uint32_t next_chunk = 0;
        std::int64_t wake_at = -1;
        // The entry behind the packet it sends, in that packet's input queue, as the grant read it:
        // the new head once the packet is sent, read here instead of from the ring (a miss by then).
        QueueEntry behind{};
    };
    static_assert(sizeof(Port) == 64, "a port spans more cache lines than planned");
    using LinkTimes = PacketTiming::LinkTimes;
    using OutputVl = LinkCredits::OutputVl;
    // What an arrive event (flit and aggregated modes) carries beyond the event's
    // word: the input reached, the packet, the hop, and the chunk.
    struct Arrival {
        std::uint32_t in, packet, hop, chunk;
    };

    // Links whose packets are cut as `options` say (whole, or in chunks of its aggregation).
    explicit Links(const SimOptions& options);
    // The ports of every device of `topology`, cabled as it says, at its rates where
    // `topology_rates`; host_index: per device, its host index or none. Throws
    // std::invalid_argument for a link rate the model cannot take.
    void build(const Topology& topology, const std::vector<std::uint32_t>& host_index);

    // The fabric cut into parts (FabricSim): this is part `self`, and `part_of_device` says
    // whose each device is. Packets and credits for another part's ports are handed over at the
    // end of the window (crossings_out, credits_out), `parts` in all.
    void assign_part(std::uint32_t self, std::uint32_t parts, const std::vector<std::uint32_t>& part_of_device);
    bool crosses(std::uint32_t port) const { return !part_of_port_.empty() && part_of_port_[port] != self_; }
    std::uint32_t part_of_port(std::uint32_t port) const { return part_of_port_.empty() ? 0 : part_of_port_[port]; }

    std::uint32_t port_count() const { return static_cast<std::uint32_t>(ports_.size()); }
    std::uint32_t first_port(std::uint32_t device) const { return port_base_[device]; }
    Port& port(std::uint32_t i) { return ports_[i]; }
    const Port& port(std::uint32_t i) const { return ports_[i]; }
    const LinkTimes& times(std::uint32_t port) const { return timing_.times(ports_[port].rate); }
    const PacketTiming& timing() const { return timing_; }
    OutputVl& output(std::uint32_t out, std::uint32_t vl) { return credits_[part().queue_index(out, vl)]; }

    // ---- arbitration: an output decides at the end of the instant, in port order ----
    void arbitrate(std::uint32_t out);
    template <Granularity G>
    void arbitrate_dirty_ports();
    // A wake event of output `out` at `t` (one that a later wake replaced finds nothing to do).
    void on_wake(std::uint32_t out, std::int64_t t);
    bool has_dirty_ports() const { return dirty_count_ != 0; }

    // The round robin over VLs after granting `vl`: first those of `asking` above it, then the
    // others (arbitrate_now); and the VL it visits first.
    static std::uint32_t vls_above(std::uint32_t asking, std::uint32_t vl) { return asking & ~((2u << vl) - 1); }
    static std::uint32_t first_vl_after(std::uint32_t asking, std::uint32_t vl) {
        const std::uint32_t above = vls_above(asking, vl);
        return static_cast<std::uint32_t>(std::countr_zero(above ? above : asking));
    }

    // ---- sending: after a device granted output `out` its packet ----
    template <Granularity G>
    void start_packet(std::uint32_t out);
    template <Granularity G>
    void on_tx_done(std::uint32_t out);
    // Flit and aggregated modes: a later chunk of the head packet of input `queue` arrived; its
    // output `out` may be waiting for it.
    void chunk_arrived(std::uint32_t out, std::uint32_t queue);
    // At a grant on `vl`, a packet's time before output `out` arbitrates again: the VL it will
    // visit first (none: no VL asks), whose credit ramps are asked from memory now; its device
    // asks for what it will offer there (with traffic on several VLs, mostly another VL).
    std::uint32_t prefetch_next_vl(std::uint32_t out, std::uint32_t vl) const {
        const Port& o = ports_[out];
        if (!o.asking) return none;
        const std::uint32_t next_vl = first_vl_after(o.asking, vl);
        __builtin_prefetch(reinterpret_cast<const char*>(&credits_[part().queue_index(out, next_vl)]) + 64);
        return next_vl;
    }
    // What an arrive event carries, taken back.
    Arrival take_arrival(std::uint32_t a) { return arrivals_.take(a); }

    // ---- credits ----
    LinkCredits::Cover credits_cover(std::uint32_t out, std::uint32_t vl) { return {credits_, part().queue_index(out, vl), part().now}; }
    std::int64_t time_credits_reach(std::uint32_t out, std::uint32_t vl, std::int64_t need) const {
        return credits_.time_reached(part().queue_index(out, vl), need, part().now);
    }
    // After a credits_cover of (out, vl) at this instant, which folded the complete ramps.
    void take_credits(std::uint32_t out, std::uint32_t vl, std::uint32_t blocks);
    // Credits for `blocks` of input `in`'s buffer go back to its peer: all at `base`, or the
    // i-th at base + min((i + 1) step, total) when total > 0; `base` is a credit latency from now.
    // Between two switches they reach the output at the end of the window (SimPart::window_ps).
    void return_credits(std::uint32_t in, std::uint32_t vl, std::int64_t base, std::uint32_t blocks, std::int64_t total = 0,
                        std::int64_t step = 1);
    // Credits on their way between switches: the output, its VL, the credits coming back.
    struct CreditReturn {
        std::uint32_t out, vl;
        LinkCredits::Ramp ramp;
    };
    // At the end of a window: the credits returned between switches in it reach their outputs
    // (those of another part's outputs went to credits_out).
    bool credits_pending() const { return !pending_credits_.empty(); }
    void give_pending_credits();
    // ---- what crosses to another part, handed over at the end of the window ----
    Outbox<CreditReturn>& credits_out() { return credits_out_; }
    Outbox<CrossingPacket>& crossings_out() { return crossings_out_; }
    const Outbox<CrossingPacket>& crossings_out() const { return crossings_out_; }
    bool holds_written_mail() const { return credits_out_.holds_written() || crossings_out_.holds_written(); }
    // From another part: credits to an output of this one; a packet into a switch of this one.
    void receive(const CreditReturn& c) { give_credits(c.out, c.vl, c.ramp); }
    void receive(const CrossingPacket& c);
    // Whether output `out` is idle with requesters, waiting for credits.
    bool is_waiting(std::size_t out) const { return port_counters_.is_waiting(out); }

    // ---- checks: the blocks in each input buffer (inline: runs without checks pay a test) ----
    void occupancy_change(std::uint32_t queue, std::int64_t blocks) {
        if (part().checks) check_occupancy(queue, blocks);
    }
    // Throws SimCheckError unless every cabled output holds all its credits.
    void verify_credits() const;

    // ---- what the ports counted ----
    // Packet mode counts a packet's bytes and blocks as it starts; this leaves out the packet still being sent.
    PortCounters::Sent sent_counters(std::uint32_t port) const;
    std::int64_t xmit_wait_ps(std::uint32_t port) const { return port_counters_.xmit_wait_ps(port); }
    void close_waits() { port_counters_.close_waits(part().now); }
    std::size_t ramp_entries() const { return credits_.ramp_entries(); }
    double slowest_gbps() const;
    std::string rates() const; // "100 Gb/s", or each rate with its cables

private:
    template <Granularity G>
    void arbitrate_now(std::uint32_t out);
    // Credits on their way to output `out` from now on.
    void give_credits(std::uint32_t out, std::uint32_t vl, const LinkCredits::Ramp& ramp);
    // Credits on their way to output `out`, which waits for credits: only its wake may move earlier.
    void wake_earlier(std::uint32_t out, std::uint32_t vl);
    void send_chunk(std::uint32_t out);
    void send_packet(std::uint32_t out);
    // Packet mode: out's packet enters the switch across a cut at `at`, in another part.
    void hand_over(std::uint32_t out, std::int64_t at);
    // `wire`: the packet's time on out's link, `last`: its last flit's.
    std::int64_t packet_done(std::uint32_t out, std::uint32_t packet, std::int64_t wire, std::int64_t last);
    void check_occupancy(std::uint32_t queue, std::int64_t blocks);

    std::vector<std::uint32_t> port_base_; // per device: first global port index
    HugePageVector<Port> ports_;
    PacketTiming timing_; // link times by rate, in the order first cabled; 0: none
    PortCounters port_counters_; // per port, with the bit of each waiting for credits
    LinkCredits credits_; // per (port, VL), with the outputs' round robin
    std::vector<std::int64_t> occupancy_; // per (port, VL), with checks
    std::vector<std::uint32_t> dirty_; // outputs to arbitrate at the end of this instant: the first dirty_count_
    std::vector<std::uint32_t> dirty_batch_; // the batch deciding (both sized to all ports: no check per append)
    std::uint32_t dirty_count_ = 0;
    IndexPool<Arrival> arrivals_;
    std::vector<CreditReturn> pending_credits_; // returned in this window, in the order returned
    Outbox<CreditReturn> credits_out_; // to another part's outputs
    Outbox<CrossingPacket> crossings_out_; // into another part's switches, in the order sent
    std::vector<std::uint32_t> part_of_port_; // empty: the fabric is one part
    std::uint32_t self_ = 0;
};

} // namespace evb::netsim
