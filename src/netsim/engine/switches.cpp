#include "netsim/engine/switches.hpp"

#include "netsim/engine/fabric_elements.hpp"

#include <algorithm>
#include <string>

namespace evb::netsim {

void Switches::build(const Topology& topology, const Routing& routing) {
    topology_ = &topology;
    routing_ = &routing;
    const auto& devices = topology.devices();
    requests_.reset(devices.size());
    for (std::uint32_t d = 0; d < devices.size(); ++d)
        if (devices[d].kind != DeviceKind::host) requests_.add_switch(d, static_cast<std::uint32_t>(devices[d].ports.size()));
    if (!routing.lft.empty() && routing.lft.size() != devices.size())
        throw std::invalid_argument("routing tables do not match the topology");
    for (std::uint32_t d = 0; d < routing.lft.size(); ++d)
        for (std::size_t lid = 0; lid < routing.lft[d].size(); ++lid)
            if (routing.lft[d][lid] != no_port && routing.lft[d][lid] >= devices[d].ports.size())
                throw std::invalid_argument("routing: " + devices[d].name + " sends LID " + std::to_string(lid) + " to port " +
                                            std::to_string(routing.lft[d][lid] + 1) + "; it has ports 1.." +
                                            std::to_string(devices[d].ports.size()));
    requests_.allocate(part().vls);
    queues_.resize(std::size_t{part().port_count} * part().vls);
    for (std::uint32_t vl = 0; vl < part().vls; ++vl)
        for (std::uint32_t port = 0; port < part().port_count; ++port) {
            InputQueue& iq = queues_[part().queue_index(port, vl)];
            iq.in_local = links().port(port).local;
            iq.first_port = links().first_port(links().port(port).device);
            iq.vl = static_cast<std::uint8_t>(vl);
        }
}

void Switches::enter(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::int64_t ready) {
    links().occupancy_change(part().queue_index(in, packets()[pk].vl), packets()[pk].blocks);
    enqueue(in, pk, hop, ready);
}

void Switches::chunk_arrived(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::uint32_t chunk) {
    const SimPackets::Packet& p = packets()[pk];
    const std::uint32_t q = part().queue_index(in, p.vl);
    links().occupancy_change(q, links().timing().chunk_blocks(p.blocks, chunk));
    std::uint16_t& in_hop = packets().arrived(pk)[hop];
    if (in_hop != chunk) part().check_failed("chunk arrived out of order");
    in_hop = static_cast<std::uint16_t>(chunk + 1);
    if (chunk == 0) {
        enqueue(in, pk, hop, part().now + part().switch_ps);
        return;
    }
    // A later chunk: the output forwarding this packet may be waiting for it.
    const InputQueue& iq = queues_[q];
    if (iq.size == 0) return;
    const QueueEntry& head = iq.ring[iq.head];
    if (head.packet == pk) links().chunk_arrived(iq.out(head), q);
}

void Switches::enqueue(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::int64_t ready) {
    const Links::Port& port = links().port(in);
    SimPackets::Packet& p = packets()[pk];
    if (hop >= SimPackets::max_hops) part().check_failed("packet exceeded " + std::to_string(SimPackets::max_hops) + " hops");
    const Lft& lft = routing_->lft[port.device];
    const std::uint16_t out = p.dst_lid < lft.size() ? lft[p.dst_lid] : no_port; // a port the switch has (build)
    if (out == no_port) part().check_failed("no route on " + topology_->device(port.device).name + " for LID " + std::to_string(p.dst_lid));
    const std::uint32_t q = part().queue_index(in, p.vl);
    InputQueue& iq = queues_[q];
    if (iq.size == iq.capacity) { // grow the ring (amortised; steady state never allocates)
        const std::uint32_t capacity = std::max(8u, iq.capacity * 2);
        auto* bigger = static_cast<QueueEntry*>(arena_.allocate(capacity * sizeof(QueueEntry), alignof(QueueEntry)));
        for (std::uint32_t i = 0; i < iq.size; ++i) bigger[i] = iq.ring[(iq.head + i) & (iq.capacity - 1)];
        if (iq.ring) arena_.deallocate(iq.ring, iq.capacity * sizeof(QueueEntry), alignof(QueueEntry));
        iq.ring = bigger;
        iq.capacity = capacity;
        iq.head = 0;
    }
    p.hop = static_cast<std::uint8_t>(hop);
    iq.ring[(iq.head + iq.size) & (iq.capacity - 1)] =
        QueueEntry{pk, out, static_cast<std::uint16_t>(p.blocks <= UINT16_MAX ? p.blocks : 0), ready};
    if (++iq.size == 1) make_head_ready(q);
}

void Switches::make_head_ready(std::uint32_t q) {
    const InputQueue& iq = queues_[q];
    make_head_ready(q, iq, iq.ring[iq.head]);
}

void Switches::make_head_ready(std::uint32_t q, const InputQueue& iq, const QueueEntry& e) {
    if (e.ready > part().now) {
        part().queue.push(e.ready, event::head_ready, q);
        return;
    }
    request(iq.out(e), iq.vl, iq.in_local, e.need ? e.need : packets()[e.packet].blocks, e.packet);
}

void Switches::request(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need, std::uint32_t packet) {
    requests(out, vl).ask(requester, need, packet);
    Links::Port& o = links().port(out);
    o.asking |= static_cast<std::uint16_t>(1u << vl);
    if (!o.transmitting) links().arbitrate(out);
}

template <Granularity G>
bool Switches::offer(std::uint32_t out, std::uint32_t vl, std::uint32_t& min_need) {
    Links::OutputVl& ov = links().output(out, vl);
    const SwitchRequests::Output inputs = requests(out, vl);
    auto available = links().credits_cover(out, vl);
    // Requester `pos`, in round robin order: granted if the credits cover its need.
    auto granted = [&](std::uint32_t pos) {
        const std::uint32_t need = inputs[pos].need;
        if (!available(need)) {
            min_need = std::min(min_need, need);
            return false;
        }
        ov.last_granted = pos;
        grant_input<G>(out, vl, pos, need);
        return true;
    };
    if (inputs.visit_from(SwitchRequests::start_after(ov.last_granted), granted)) return true;
    ov.least_need = min_need;
    return false;
}

template <Granularity G>
void Switches::grant_input(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need) {
    Links::Port& o = links().port(out);
    // The head's packet as it asked (the line arbitration just read), not from its queue entry (a miss).
    SwitchRequests::Output inputs = requests(out, vl);
    const std::uint32_t pk = inputs[requester].packet;
    __builtin_prefetch(&packets()[pk]); // asked beside the queue's lines, not after them
    links().take_credits(out, vl, need);
    if (!inputs.withdraw(requester)) o.asking &= static_cast<std::uint16_t>(~(1u << vl));
    prefetch_next_grant(out, vl);
    const std::uint32_t q = part().queue_index(links().first_port(o.device) + requester, vl);
    if (part().checks && queues_[q].ring[queues_[q].head].packet != pk)
        part().check_failed("an input's request is not for its head packet");
    o.cur_packet = pk;
    o.cur_queue = q;
    o.cur_hop = static_cast<std::uint8_t>(packets()[pk].hop + 1);
    // The packet behind becomes the head once this one is sent, a packet's time from now: what it
    // will touch is asked from memory now (a run waits on memory more than it computes).
    const InputQueue& iq = queues_[q];
    o.behind_known = iq.size > 1;
    if (iq.size > 1) {
        const QueueEntry& behind = iq.ring[(iq.head + 1) & (iq.capacity - 1)];
        o.behind = behind;
        __builtin_prefetch(&packets()[behind.packet]);
        __builtin_prefetch(&links().port(iq.out(behind)));
        __builtin_prefetch(&links().output(iq.out(behind), vl));
    }
    links().start_packet<G>(out);
}

void Switches::prefetch_next_grant(std::uint32_t out, std::uint32_t vl) {
    const std::uint32_t next_vl = links().prefetch_next_vl(out, vl);
    if (next_vl == Links::none) return;
    const SwitchRequests::Output inputs = requests(out, next_vl);
    const std::uint32_t next = inputs.first_from(SwitchRequests::start_after(links().output(out, next_vl).last_granted));
    if (next != SwitchRequests::none) __builtin_prefetch(&packets()[inputs[next].packet]);
}

template bool Switches::offer<Granularity::chunks>(std::uint32_t, std::uint32_t, std::uint32_t&);
template bool Switches::offer<Granularity::packets>(std::uint32_t, std::uint32_t, std::uint32_t&);

} // namespace evb::netsim
