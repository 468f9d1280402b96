#include "netsim/engine/host_adapters.hpp"

#include "core/hash.hpp"
#include "netsim/engine/fabric_elements.hpp"

#include <algorithm>
#include <string>

namespace evb::netsim {

HostAdapters::HostAdapters(std::uint64_t seed) : seed_(mix64(seed)) {}

void HostAdapters::build(const Topology& topology) {
    const auto& devices = topology.devices();
    for (const std::uint32_t dev : topology.hosts()) {
        if (!devices[dev].ports.at(0)) throw std::invalid_argument(devices[dev].name + " is not cabled");
        host_port_.push_back(links().first_port(dev));
        host_lid_.push_back(devices[dev].lid);
    }
    flows_.resize(std::size_t{count()} * part().vls);
    draws_.assign(count(), 0);
    counters_.reset(count());
}

void HostAdapters::post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag) {
    if (src >= count() || dst >= count() || src == dst)
        throw std::invalid_argument("cannot post from host " + std::to_string(src) + " to host " + std::to_string(dst));
    if (bytes == 0) throw std::invalid_argument("cannot post an empty message");
    const std::uint32_t m = messages_.add(Message{src, dst, none, bytes, tag, 0, part().now});
    ++live_messages_;
    // The host's own stream: its draws do not depend on what other hosts posted in between.
    const std::uint64_t n = draws_[src]++;
    const std::uint64_t h1 = mix64(seed_, src, 2 * n), h2 = mix64(seed_, src, 2 * n + 1);
    Picoseconds delay = part().options.host_latency.draw(unit_interval(h1), unit_interval(h2));
    part().queue.push(part().now + std::max<std::int64_t>(0, delay.count()), event::message_ready, m);
}

void HostAdapters::message_ready(std::uint32_t m) {
    const Message& msg = messages_[m];
    const std::uint32_t vl = msg.dst % part().options.ib.traffic_vls, port = host_port_[msg.src];
    const std::uint32_t need = links().timing().next_packet_blocks(msg.bytes);
    if (const std::uint32_t tail = flows(msg.src, vl).queue(msg.dst, m, msg.bytes, need); tail != AdapterFlows::none) {
        messages_[tail].next = m;
        return;
    }
    Links::OutputVl& ov = links().output(port, vl);
    ov.least_need = 0; // a new flow: unknown until the next scan
    ov.short_flows += need < links().timing().mtu_blocks();
    if (part().checks) check_short_flows(port, vl);
    Links::Port& o = links().port(port);
    o.asking |= static_cast<std::uint16_t>(1u << vl);
    if (!o.transmitting) links().arbitrate(port);
}

template <Granularity G>
bool HostAdapters::offer(std::uint32_t out, std::uint32_t vl, std::uint32_t& min_need) {
    const AdapterFlows& fl = flows(links().port(out).host, vl);
    auto available = links().credits_cover(out, vl);
    Links::OutputVl& ov = links().output(out, vl);
    const std::uint32_t mtu_blocks = links().timing().mtu_blocks();
    // Credits only grow until a grant: short of the smallest need the last scan found (its flows
    // unchanged since), every flow would be visited in vain.
    if (ov.least_need != 0 && !available(ov.least_need)) {
        min_need = ov.least_need;
        return false;
    }
    if (ov.short_flows == 0 && !available(mtu_blocks)) {
        // No flow's next packet is below a full MTU (the event builder's fragments; only its small
        // messages are shorter): credits short of one cover none, unvisited.
        min_need = ov.least_need = mtu_blocks;
        return false;
    }
    const std::size_t n = fl.size();
    std::size_t f = fl.next();
    for (std::size_t k = 0; k < n; ++k, ++f) {
        if (f == n) f = 0;
        if (available(fl[f].need)) {
            grant_flow<G>(out, vl, f, fl[f].need);
            return true;
        }
        min_need = std::min(min_need, fl[f].need);
    }
    ov.least_need = min_need;
    return false;
}

template <Granularity G>
void HostAdapters::grant_flow(std::uint32_t out, std::uint32_t vl, std::size_t f, std::uint32_t need) {
    Links::Port& o = links().port(out);
    const PacketTiming& timing = links().timing();
    links().take_credits(out, vl, need);
    Links::OutputVl& ov = links().output(out, vl);
    ov.least_need = 0; // its flows change: unknown until the next scan
    ov.short_flows -= need < timing.mtu_blocks();
    // The adapter cuts the next packet of the flow's head message.
    AdapterFlows& fl = flows(o.host, vl);
    const AdapterFlows::Flow& flow = fl[f];
    const std::uint32_t payload = timing.next_payload(flow.left);
    const std::uint32_t pk = packets().alloc<G>();
    SimPackets::Packet& p = packets()[pk];
    p.message = flow.head;
    p.dst_host = flow.dst;
    p.dst_lid = host_lid_[flow.dst];
    p.vl = static_cast<std::uint8_t>(vl);
    p.payload = payload;
    p.wire = part().options.ib.wire_bytes(payload);
    p.blocks = need;
    p.chunks = timing.chunks(p.blocks);
    p.created = part().now;
    p.last_in = part().now; // in the adapter's memory
    p.pace_count = 0;
    if constexpr (G == Granularity::chunks) std::fill_n(packets().arrived(pk), SimPackets::max_hops, std::uint16_t{0});
    counters_.started(o.host, payload); // counted as it starts (see in_flight_payload)
    const std::uint64_t left = fl.cut(f, payload);
    p.last_of_message = left == 0;
    if (left > 0) {
        fl.set_need(f, timing.next_packet_blocks(left));
        ov.short_flows += flow.need < timing.mtu_blocks();
    } else if (const std::uint32_t next = messages_[flow.head].next; next != none) {
        fl.advance(f, next, messages_[next].bytes, timing.next_packet_blocks(messages_[next].bytes));
        ov.short_flows += flow.need < timing.mtu_blocks();
    } else {
        fl.remove(f);
        if (fl.empty()) o.asking &= static_cast<std::uint16_t>(~(1u << vl));
    }
    if (part().checks) check_short_flows(out, vl);
    prefetch_next_grant(out, vl);
    o.cur_packet = pk;
    o.cur_queue = none;
    o.cur_hop = 0;
    links().start_packet<G>(out);
}

void HostAdapters::deliver_at(std::uint32_t pk, std::int64_t at) {
    const SimPackets::Packet& p = packets()[pk];
    if (p.last_of_message) {
        part().queue.push(at, event::deliver, pk);
        return;
    }
    // The packet is freed once sent (Links::on_tx_done).
    counters_.arriving(p.dst_host, at, at - p.created, p.payload, part().now);
}

bool HostAdapters::sink_chunk(std::uint32_t in, std::uint32_t pk, std::uint32_t chunk) {
    const SimPackets::Packet& p = packets()[pk];
    const Links::Port& port = links().port(in);
    if (port.host != p.dst_host)
        part().check_failed("packet for host " + std::to_string(p.dst_host) + " delivered to host " + std::to_string(port.host));
    // The adapter's sink takes every flit as it arrives: its buffer holds the chunk for no time.
    const std::uint32_t blocks = links().timing().chunk_blocks(p.blocks, chunk);
    const std::uint32_t q = part().queue_index(in, p.vl);
    links().occupancy_change(q, blocks);
    links().occupancy_change(q, -static_cast<std::int64_t>(blocks));
    links().return_credits(in, p.vl, part().now + part().credit_ps, blocks);
    return chunk + 1 == p.chunks;
}

template <Granularity G>
const SimMessage* HostAdapters::deliver(std::uint32_t pk) {
    const SimPackets::Packet& p = packets()[pk];
    Message& m = messages_[p.message];
    // Packet mode delivers a message's last packet only: the others, on the same path, arrived
    // before it (and were counted by deliver_at).
    if constexpr (G == Granularity::packets)
        m.delivered = m.bytes;
    else
        m.delivered += p.payload;
    counters_.arrived(p.dst_host, p.payload, part().now - p.created);
    const std::uint32_t message = p.message, host = p.dst_host;
    packets().release(pk);
    if (m.delivered < m.bytes) return nullptr;
    counters_.message_arrived(host, part().now - m.posted);
    done_ = SimMessage{m.src, m.dst, m.bytes, m.tag, Picoseconds(m.posted), Picoseconds(part().now)};
    messages_.release(message);
    --live_messages_;
    return &done_;
}

std::int64_t HostAdapters::ack_ps(std::uint32_t from, std::uint32_t to) const {
    std::int64_t t = 0;
    std::uint32_t port = host_port_[from];
    for (std::uint32_t links_crossed = 0;; ++links_crossed) {
        if (links_crossed == SimPackets::max_hops)
            part().check_failed("no path of at most 16 links from host " + std::to_string(from) + " to host " + std::to_string(to));
        t += part().link_ps + links().times(port).flit_ps;
        const Links::Port& in = links().port(links().port(port).peer);
        if (in.host != none) {
            if (in.host != to) part().check_failed("the ACK for host " + std::to_string(to) + " reached host " + std::to_string(in.host));
            return t;
        }
        t += part().switch_ps;
        const std::uint32_t out = switches().route(in.device, host_lid_[to]);
        if (out == none) part().check_failed("no route on switch device " + std::to_string(in.device) + " for host " + std::to_string(to));
        port = links().first_port(in.device) + out;
    }
}

std::uint32_t HostAdapters::in_flight_payload(std::uint32_t h) const {
    const Links::Port& o = links().port(host_port_[h]);
    return o.transmitting ? packets()[o.cur_packet].payload : 0;
}

void HostAdapters::check_short_flows(std::uint32_t port, std::uint32_t vl) {
    const std::uint32_t host = links().port(port).host;
    const std::size_t n = flows(host, vl).count_below(links().timing().mtu_blocks());
    if (static_cast<std::uint32_t>(n) != links().output(port, vl).short_flows)
        part().check_failed("host " + std::to_string(host) + " VL " + std::to_string(vl) + " counts " +
                            std::to_string(links().output(port, vl).short_flows) + " flows below a full packet, holds " +
                            std::to_string(n));
}

template bool HostAdapters::offer<Granularity::chunks>(std::uint32_t, std::uint32_t, std::uint32_t&);
template bool HostAdapters::offer<Granularity::packets>(std::uint32_t, std::uint32_t, std::uint32_t&);
template const SimMessage* HostAdapters::deliver<Granularity::chunks>(std::uint32_t);
template const SimMessage* HostAdapters::deliver<Granularity::packets>(std::uint32_t);

} // namespace evb::netsim
