// The switches of the simulated fabric: input-buffered, a FIFO per input port and VL; a packet
// that enters is routed by its switch's forwarding table (LFT) and, once its first flit is in
// and switched, its input asks the packet's output; an output grants its requesters round robin
// (SwitchRequests) when its link's credits cover the packet, and the packet is cut through.
#pragma once
#include "core/huge_page_allocator.hpp"
#include "core/huge_page_arena.hpp"
#include "netsim/engine/fabric_element.hpp"
#include "netsim/engine/fabric_part.hpp"
#include "netsim/engine/links.hpp"
#include "netsim/engine/sim_packets.hpp"
#include "netsim/engine/switch_requests.hpp"
#include "netsim/fabric/routing.hpp"
#include "netsim/fabric/topology.hpp"

#include <cstdint>

namespace evb::netsim {

class Switches : public FabricElement<Switches> {
public:
    using QueueEntry = Links::QueueEntry;

    // The switches of `topology`, forwarding by `routing` (both outlive this), after links.build.
    // Throws std::invalid_argument when the tables do not match the topology.
    void build(const Topology& topology, const Routing& routing);

    // Packet mode: packet `pk`, sent over `hop`, joins input `in`'s queue (its credits are
    // taken) and may ask its output at `ready`, its first flit in and switched.
    void enter(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::int64_t ready);
    // Flit and aggregated modes: chunk `chunk` of packet `pk` is wholly in at input `in`.
    void chunk_arrived(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::uint32_t chunk);
    // A head_ready event: the head of input queue `q` may ask its output now.
    void head_ready(std::uint32_t q) { make_head_ready(q); }

    // Output `out`'s requesters on `vl` in its round robin order: grants the first whose need the
    // credits cover and returns true; else keeps the smallest need in `min_need`.
    template <Granularity G>
    bool offer(std::uint32_t out, std::uint32_t vl, std::uint32_t& min_need);
    // The head of input queue `q` was sent: the entry behind it (`behind`, as the grant read it,
    // or null to read it from the queue) becomes the head.
    void head_sent(std::uint32_t q, const QueueEntry* behind) {
        InputQueue& iq = queues_[q];
        iq.head = (iq.head + 1) & (iq.capacity - 1);
        if (--iq.size == 0) return;
        if (!behind) {
            make_head_ready(q);
            return;
        }
        if (part().checks && iq.ring[iq.head].packet != behind->packet)
            part().check_failed("an output's copy of the next head is not its queue's");
        make_head_ready(q, iq, *behind);
    }

    // The port (from 0) switch `device` forwards LID `lid` to; none without a route.
    std::uint32_t route(std::uint32_t device, std::uint32_t lid) const {
        const Lft& lft = routing_->lft[device];
        return lid < lft.size() && lft[lid] != no_port ? lft[lid] : Links::none;
    }

    void prefetch_queue(std::uint32_t q) const { __builtin_prefetch(&queues_[q]); }

private:
    struct alignas(32) InputQueue { // FIFO ring per (port, VL); its capacity is 0 or a power of two
        QueueEntry* ring = nullptr; // from arena_
        std::uint32_t capacity = 0, head = 0, size = 0;
        std::uint32_t first_port = 0; // its switch's first port: an entry's output is first_port + out_local
        std::uint16_t in_local = 0; // the input's port number, its requester bit at an output
        std::uint8_t vl = 0; // kept so that a new head's request divides nothing
        std::uint32_t out(const QueueEntry& e) const { return first_port + e.out_local; }
    };

    // A packet into switch input `in`, at `hop`, is ready to be arbitrated at `ready`.
    void enqueue(std::uint32_t in, std::uint32_t packet, std::uint32_t hop, std::int64_t ready);
    // The head of `queue` asks its output, or waits until it is ready: from its ring, or from the
    // copy `head` of its entry that the output sending the packet before it keeps.
    void make_head_ready(std::uint32_t queue);
    void make_head_ready(std::uint32_t queue, const InputQueue& iq, const QueueEntry& head);
    // A switch's input port asks output `out` for its head packet of `need` blocks.
    void request(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need, std::uint32_t packet);
    // After a grant on `vl`: the requester output `out`'s round robin visits first next (its
    // packet's line is then the grant's first miss), asked from memory now.
    void prefetch_next_grant(std::uint32_t out, std::uint32_t vl);
    template <Granularity G>
    void grant_input(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need);
    SwitchRequests::Output requests(std::uint32_t out, std::uint32_t vl) {
        const Links::Port& o = links().port(out);
        return requests_.output(o.device, o.local * part().vls + vl);
    }

    const Topology* topology_ = nullptr;
    const Routing* routing_ = nullptr;
    // The input queues' rings side by side in 2 MiB huge pages (declared before them: destroyed
    // after): read per packet and hop, they are the TLB's gain.
    HugePageArena arena_;
    HugePageVector<InputQueue> queues_; // per (port, VL)
    SwitchRequests requests_; // per switch output and VL: the inputs asking
};

} // namespace evb::netsim
