#include "netsim/engine/fabric_sim.hpp"

#include "core/hash.hpp"
#include "netsim/fabric/link_rate.hpp"
#include "core/machine_info.hpp"
#include "core/quantity.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <utility>

namespace evb::netsim {

SimMode parse_sim_mode(const std::string& name) {
    if (name == "flit") return SimMode::flit;
    if (name == "aggregated") return SimMode::aggregated;
    if (name == "packet") return SimMode::packet;
    throw std::invalid_argument("unknown simulation mode '" + name + "' (choose flit|aggregated|packet)");
}

std::string to_string(SimMode mode) {
    switch (mode) {
    case SimMode::flit: return "flit";
    case SimMode::aggregated: return "aggregated";
    case SimMode::packet: return "packet";
    }
    return "?";
}

namespace {

// Throws std::invalid_argument on bad parameters; flit mode is aggregation 1.
SimOptions checked(SimOptions options) {
    options.ib.validate();
    if (options.mode == SimMode::aggregated && (options.aggregation == 0 || options.aggregation > 4096))
        throw std::invalid_argument("flit aggregation must be within 1..4096");
    if (options.mode == SimMode::flit) options.aggregation = 1;
    return options;
}

} // namespace

FabricSim::FabricSim(const Topology& topology, const Routing& routing, SimOptions options)
    : topology_(topology), routing_(routing), options_(checked(std::move(options))), vls_(options_.ib.vls),
      timing_(options_.ib, options_.mode == SimMode::packet ? 0 : options_.aggregation), rng_state_(mix64(options_.seed)) {
    static_assert(sizeof(Port) == 64 && sizeof(Packet) == 64, "hot simulator state spans more cache lines than planned");
    const IbParams& ib = options_.ib;
    link_ps_ = ib.link_latency.count();
    credit_ps_ = ib.credit_latency.count();
    switch_ps_ = ib.switch_latency.count();
    capacity_ = ib.buffer_blocks();

    const auto& devices = topology.devices();
    std::uint32_t total_ports = 0;
    for (const auto& d : devices) {
        port_base_.push_back(total_ports);
        total_ports += static_cast<std::uint32_t>(d.ports.size());
    }
    ports_.resize(total_ports);
    port_counters_.reset(total_ports);
    port_count_ = total_ports;
    dirty_.resize(total_ports); // a port is in it at most once (its dirty flag)
    dirty_batch_.resize(total_ports);
    const auto host_count = static_cast<std::uint32_t>(topology.hosts().size());
    std::vector<std::uint32_t> host_index(devices.size(), none);
    for (std::uint32_t h = 0; h < host_count; ++h) host_index[topology.hosts()[h]] = h;
    host_of_lid_.assign(topology.max_lid() + 1, none);
    for (std::uint32_t h = 0; h < host_count; ++h) {
        std::uint32_t dev = topology.hosts()[h];
        if (!devices[dev].ports.at(0)) throw std::invalid_argument(devices[dev].name + " is not cabled");
        host_port_.push_back(port_base_[dev]);
        host_lid_.push_back(devices[dev].lid);
        host_of_lid_.at(devices[dev].lid) = h;
    }
    requests_.reset(devices.size());
    for (std::uint32_t d = 0; d < devices.size(); ++d) {
        const bool is_host = devices[d].kind == DeviceKind::host;
        for (std::uint32_t p = 0; p < devices[d].ports.size(); ++p) {
            Port& port = ports_[port_base_[d] + p];
            port.device = d;
            port.local = static_cast<std::uint16_t>(p);
            if (is_host) port.host = host_index[d];
            if (const auto& peer = devices[d].ports[p]) {
                port.peer = port_base_[peer->device] + peer->port;
                port.peer_host = host_index[peer->device];
                double gbps = ib.link_gbps;
                const std::string& kind = devices[d].link_kinds.empty() ? std::string() : devices[d].link_kinds[p];
                if (options_.topology_rates && !kind.empty()) {
                    auto rate = link_data_gbps(kind);
                    if (!rate)
                        throw std::invalid_argument(devices[d].name + " port " + std::to_string(p + 1) + ": unknown link '" + kind + "'");
                    gbps = *rate;
                }
                port.rate = timing_.rate_index(gbps);
            }
        }
        if (!is_host) requests_.add_switch(d, static_cast<std::uint32_t>(devices[d].ports.size()));
    }
    if (!routing.lft.empty() && routing.lft.size() != devices.size())
        throw std::invalid_argument("routing tables do not match the topology");
    for (std::uint32_t d = 0; d < routing.lft.size(); ++d)
        for (std::size_t lid = 0; lid < routing.lft[d].size(); ++lid)
            if (routing.lft[d][lid] != no_port && routing.lft[d][lid] >= devices[d].ports.size())
                throw std::invalid_argument("routing: " + devices[d].name + " sends LID " + std::to_string(lid) + " to port " +
                                            std::to_string(routing.lft[d][lid] + 1) + "; it has ports 1.." +
                                            std::to_string(devices[d].ports.size()));
    // Nearly every event lies within a full packet on the slowest link and a hop's latency.
    std::int64_t span = 0;
    for (const LinkTimes& l : timing_.rates()) span = std::max(span, l.mtu_wire_ps + link_ps_ + switch_ps_);
    queue_.cover(span);
    requests_.allocate(vls_);
    credits_.reset(std::size_t{total_ports} * vls_, capacity_);
    for (std::uint32_t vl = 0; vl < vls_; ++vl)
        for (std::uint32_t port : host_port_) credits_[queue_index(port, vl)].short_flows = 0;
    queues_.resize(std::size_t{total_ports} * vls_);
    for (std::uint32_t vl = 0; vl < vls_; ++vl)
        for (std::uint32_t port = 0; port < total_ports; ++port) {
            InputQueue& iq = queues_[queue_index(port, vl)];
            iq.in_local = ports_[port].local;
            iq.first_port = port_base_[ports_[port].device];
            iq.vl = static_cast<std::uint8_t>(vl);
        }
    occupancy_.assign(std::size_t{total_ports} * vls_, 0);
    flows_.resize(std::size_t{host_count} * vls_);
    hosts_.reset(host_count);
}

// ---- public API -------------------------------------------------------------------------------

void FabricSim::post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag) {
    if (src >= hosts() || dst >= hosts() || src == dst)
        throw std::invalid_argument("cannot post from host " + std::to_string(src) + " to host " + std::to_string(dst));
    if (bytes == 0) throw std::invalid_argument("cannot post an empty message");
    const std::uint32_t m = messages_.add(Message{src, dst, none, bytes, tag, 0, now_});
    ++live_messages_;
    std::uint64_t h1 = mix64(rng_state_++), h2 = mix64(rng_state_++);
    Picoseconds delay = options_.host_latency.draw(unit_interval(h1), unit_interval(h2));
    queue_.push(now_ + std::max<std::int64_t>(0, delay.count()), message_ready, m);
}

void FabricSim::set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag) {
    queue_.push(std::max(now_, at.count()), timer_fired, timers_.add(Timer{host, tag}));
}

void FabricSim::run(SimApp& app, Picoseconds until) {
    app_ = &app;
    running_ = true;
    if (!started_) app.start(*this);
    started_ = true;
    if (options_.mode == SimMode::packet)
        run_events<Granularity::packets>(until.count());
    else
        run_events<Granularity::chunks>(until.count());
    running_ = false;
    if (!queue_.empty()) now_ = until.count();
    port_counters_.close_waits(now_);
    app_ = nullptr;
}

template <FabricSim::Granularity G>
void FabricSim::run_events(std::int64_t until) {
    for (SimEvent e; queue_.pop_due(until, e);) {
        now_ = e.time;
        ++events_;
        dispatch<G>(e);
        // Outputs decide once everything that happens at this instant has happened, in port
        // order: the outcome of a tie never depends on the order events were scheduled in.
        if (dirty_count_ && !queue_.more_now()) arbitrate_dirty_ports<G>();
    }
}

void FabricSim::verify_quiescent() const {
    if (live_messages_ || live_packets_)
        check_failed(std::to_string(live_messages_) + " messages and " + std::to_string(live_packets_) + " packets still in flight");
    for (std::uint32_t i = 0; i < credits_.size(); ++i) {
        if (ports_[port_of(i)].peer == none) continue;
        const std::int64_t c = credits_.held(i);
        if (c != capacity_)
            check_failed("port " + std::to_string(port_of(i)) + " VL " + std::to_string(vl_of(i)) + " ends with " + std::to_string(c) +
                         " of " + std::to_string(capacity_) + " credits: flits lost or duplicated");
    }
}

std::vector<SimPortStats> FabricSim::port_stats() const {
    std::vector<SimPortStats> out;
    for (std::size_t i = 0; i < ports_.size(); ++i) {
        const Port& p = ports_[i];
        const PortCounters::Sent c = sent_counters(static_cast<std::uint32_t>(i));
        if (p.peer != none)
            out.push_back(SimPortStats{p.device, p.local, c.tx_bytes, c.tx_packets, c.tx_blocks, port_counters_.xmit_wait_ps(i)});
    }
    return out;
}

double FabricSim::fastest_host_link_gbps() const {
    double fastest = 0;
    for (auto port : host_port_) fastest = std::max(fastest, link(port).gbps);
    return fastest;
}

double FabricSim::slowest_link_gbps() const {
    double slowest = 0;
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].peer != none && (slowest == 0 || link(i).gbps < slowest)) slowest = link(i).gbps;
    return slowest;
}

std::string FabricSim::link_rates() const {
    std::map<double, std::uint64_t> cables;
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].peer != none && ports_[i].peer > i) ++cables[link(i).gbps];
    auto gbps = [](double g) {
        std::string text = std::to_string(g);
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
        return text + " Gb/s";
    };
    if (cables.size() == 1) return gbps(cables.begin()->first);
    std::string text;
    for (const auto& [g, n] : cables) { // appended piece by piece: `"" + string` made GCC 12's LTO warn (-Wstringop-overflow)
        if (!text.empty()) text += ", ";
        text += gbps(g);
        text += " x " + std::to_string(n);
    }
    return text;
}

std::uint64_t FabricSim::flit_hops() const {
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < ports_.size(); ++i) n += sent_counters(i).tx_blocks;
    return n;
}

PortCounters::Sent FabricSim::sent_counters(std::uint32_t port) const {
    PortCounters::Sent c = port_counters_.sent(port);
    const Port& o = ports_[port];
    if (options_.mode == SimMode::packet && o.transmitting) { // counted as it started, not yet sent
        c.tx_blocks -= packets_[o.cur_packet].blocks;
        c.tx_bytes -= packets_[o.cur_packet].wire;
    }
    return c;
}

// ---- events -----------------------------------------------------------------------------------

template <FabricSim::Granularity G>
void FabricSim::dispatch(const SimEvent& e) {
    switch (e.kind) {
    case arrive: {
        const Arrival x = arrivals_.take(e.a);
        on_arrive(x.in, x.packet, x.hop, x.chunk);
        break;
    }
    case enter: { // chunk: the time from here until the packet's first flit is in and switched
        const Arrival x = arrivals_.take(e.a);
        occupancy_change(queue_index(x.in, packets_[x.packet].vl), packets_[x.packet].blocks);
        enqueue(x.in, x.packet, x.hop, now_ + x.chunk);
        break;
    }
    case tx_done: on_tx_done<G>(e.a); break;
    case wake:
        // A wake that an earlier one replaced finds what that one found: nothing to do.
        if (ports_[e.a].wake_at != e.time) break;
        ports_[e.a].wake_at = -1;
        arbitrate(e.a);
        break;
    case head_ready: make_head_ready(e.a); break;
    case message_ready: on_message_ready(e.a); break;
    case deliver: deliver_packet<G>(e.a); break;
    case timer_fired: {
        const Timer t = timers_.take(e.a);
        app_->timer(*this, t.host, t.tag);
        break;
    }
    }
}

void FabricSim::on_message_ready(std::uint32_t m) {
    const Message& msg = messages_[m];
    const std::uint32_t vl = msg.dst % options_.ib.traffic_vls, port = host_port_[msg.src];
    const std::uint32_t need = timing_.next_packet_blocks(msg.bytes);
    if (const std::uint32_t tail = flows_[std::size_t{msg.src} * vls_ + vl].queue(msg.dst, m, msg.bytes, need);
        tail != AdapterFlows::none) {
        messages_[tail].next = m;
        return;
    }
    OutputVl& ov = credits_[queue_index(port, vl)];
    ov.least_need = 0; // a new flow: unknown until the next scan
    ov.short_flows += need < timing_.mtu_blocks();
    if (options_.checks) check_short_flows(port, vl);
    ports_[port].asking |= static_cast<std::uint16_t>(1u << vl);
    if (!ports_[port].transmitting) arbitrate(port);
}

void FabricSim::on_arrive(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::uint32_t chunk) {
    Packet& p = packets_[pk];
    const std::uint32_t q = queue_index(in, p.vl);
    const std::uint32_t blocks = timing_.chunk_blocks(p.blocks, chunk);
    occupancy_change(q, blocks);
    Port& port = ports_[in];
    if (port.host != none) { // the adapter's sink takes every flit as it arrives
        if (port.host != p.dst_host)
            check_failed("packet for host " + std::to_string(p.dst_host) + " delivered to host " + std::to_string(port.host));
        occupancy_change(q, -static_cast<std::int64_t>(blocks));
        return_credits(in, p.vl, now_ + credit_ps_, blocks);
        if (chunk + 1 == p.chunks) deliver_packet<Granularity::chunks>(pk);
        return;
    }
    std::uint16_t& in_hop = arrived(pk)[hop];
    if (in_hop != chunk) check_failed("chunk arrived out of order");
    in_hop = static_cast<std::uint16_t>(chunk + 1);
    if (chunk == 0) {
        enqueue(in, pk, hop, now_ + switch_ps_);
        return;
    }
    // A later chunk: the output forwarding this packet may be waiting for it.
    const InputQueue& iq = queues_[q];
    if (iq.size == 0) return;
    const QueueEntry& head = iq.ring[iq.head];
    if (head.packet == pk) {
        Port& o = ports_[iq.out(head)];
        if (o.transmitting && o.cur_queue == q && o.waiting_chunk) {
            o.waiting_chunk = false;
            send_chunk(iq.out(head));
        }
    }
}

void FabricSim::enqueue(std::uint32_t in, std::uint32_t pk, std::uint32_t hop, std::int64_t ready) {
    const Port& port = ports_[in];
    Packet& p = packets_[pk];
    if (hop >= max_hops) check_failed("packet exceeded " + std::to_string(max_hops) + " hops");
    const Lft& lft = routing_.lft[port.device];
    const std::uint16_t out = p.dst_lid < lft.size() ? lft[p.dst_lid] : no_port; // a port the switch has (constructor)
    if (out == no_port) check_failed("no route on " + topology_.device(port.device).name + " for LID " + std::to_string(p.dst_lid));
    const std::uint32_t q = queue_index(in, p.vl);
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

template <FabricSim::Granularity G>
void FabricSim::on_tx_done(std::uint32_t out) {
    Port& o = ports_[out];
    // Packet mode: the whole packet is one chunk, counted when it started (see sent_counters);
    // the packet itself is not looked at here (its line, written a packet's time ago, a miss).
    if constexpr (G == Granularity::chunks) {
        Packet& p = packets_[o.cur_packet];
        PortCounters::Sent& counters = port_counters_.sent(out);
        const std::uint32_t c = o.next_chunk;
        const std::uint32_t blocks = timing_.chunk_blocks(p.blocks, c);
        counters.tx_blocks += blocks;
        counters.tx_bytes += timing_.chunk_bytes(p.wire, p.blocks, c);
        if (o.cur_queue != none) {
            const std::uint32_t in = input_of(o.cur_queue, p.vl);
            occupancy_change(o.cur_queue, -static_cast<std::int64_t>(blocks));
            return_credits(in, p.vl, now_ + credit_ps_, blocks);
        }
        if (++o.next_chunk < p.chunks) {
            send_chunk(out);
            return;
        }
    }
    o.transmitting = false;
    if (o.free_when_sent) { // see deliver_at
        o.free_when_sent = false;
        free_packets_.push_back(o.cur_packet);
        --live_packets_;
    }
    o.cur_packet = none;
    if (o.cur_queue != none) {
        InputQueue& iq = queues_[o.cur_queue];
        iq.head = (iq.head + 1) & (iq.capacity - 1);
        if (--iq.size) {
            if (o.behind_known) {
                if (options_.checks && iq.ring[iq.head].packet != o.behind.packet)
                    check_failed("an output's copy of the next head is not its queue's");
                make_head_ready(o.cur_queue, iq, o.behind);
            } else {
                make_head_ready(o.cur_queue);
            }
        }
    }
    // An output without requesters would grant nothing; one that comes later asks it itself.
    if (o.asking) arbitrate(out);
}

void FabricSim::deliver_at(std::uint32_t pk, std::int64_t at) {
    Packet& p = packets_[pk];
    if (p.last_of_message) {
        queue_.push(at, deliver, pk);
        return;
    }
    hosts_.arriving(p.dst_host, at, at - p.created, p.payload, now_); // the packet is freed once sent (on_tx_done)
}

std::uint32_t FabricSim::in_flight_payload(std::uint32_t h) const {
    const Port& o = ports_[host_port_[h]];
    return o.transmitting ? packets_[o.cur_packet].payload : 0;
}

template <FabricSim::Granularity G>
void FabricSim::deliver_packet(std::uint32_t pk) {
    Packet& p = packets_[pk];
    Message& m = messages_[p.message];
    // Packet mode calls this for a message's last packet only: the others, on the same path,
    // arrived before it (and were counted by deliver_at).
    if constexpr (G == Granularity::packets)
        m.delivered = m.bytes;
    else
        m.delivered += p.payload;
    hosts_.arrived(p.dst_host, p.payload, now_ - p.created);
    free_packets_.push_back(pk);
    --live_packets_;
    if (m.delivered < m.bytes) return;
    hosts_.message_arrived(p.dst_host, now_ - m.posted);
    SimMessage done{m.src, m.dst, m.bytes, m.tag, Picoseconds(m.posted), Picoseconds(now_)};
    messages_.release(p.message);
    --live_messages_;
    app_->delivered(*this, done);
}

// ---- arbitration ------------------------------------------------------------------------------

void FabricSim::make_head_ready(std::uint32_t q) {
    const InputQueue& iq = queues_[q];
    make_head_ready(q, iq, iq.ring[iq.head]);
}

void FabricSim::make_head_ready(std::uint32_t q, const InputQueue& iq, const QueueEntry& e) {
    if (e.ready > now_) {
        queue_.push(e.ready, head_ready, q);
        return;
    }
    request(iq.out(e), iq.vl, iq.in_local, e.need ? e.need : packets_[e.packet].blocks, e.packet);
}

void FabricSim::request(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need, std::uint32_t packet) {
    requests(out, vl).ask(requester, need, packet);
    ports_[out].asking |= static_cast<std::uint16_t>(1u << vl);
    if (!ports_[out].transmitting) arbitrate(out);
}

void FabricSim::arbitrate(std::uint32_t out) {
    Port& o = ports_[out];
    if (o.transmitting || o.dirty) return;
    o.dirty = true;
    dirty_[dirty_count_++] = out;
    if (o.asking) { // read at the end of the instant: its credit state, both lines (the ramps mostly in the second)
        static_assert(sizeof(OutputVl) == 128);
        const std::uint32_t vl = first_vl_after(o.asking, o.rr_vl);
        const char* credits = reinterpret_cast<const char*>(&credits_[queue_index(out, vl)]);
        __builtin_prefetch(credits);
        __builtin_prefetch(credits + 64);
        // and the next switch's input queue a grant sends into (behind the granted packet's line)
        if (o.peer_host == none) __builtin_prefetch(&queues_[queue_index(o.peer, vl)]);
    }
}

template <FabricSim::Granularity G>
void FabricSim::arbitrate_dirty_ports() {
    while (dirty_count_) {
        dirty_batch_.swap(dirty_); // ports made dirty while these decide go to the next batch
        const std::uint32_t n = std::exchange(dirty_count_, 0);
        if (n == 2) { // the common case, the port that finished and the next head's output: no branch to mispredict
            const std::uint32_t a = dirty_batch_[0], b = dirty_batch_[1];
            dirty_batch_[0] = std::min(a, b);
            dirty_batch_[1] = std::max(a, b);
        } else if (n > 2) {
            std::sort(dirty_batch_.begin(), dirty_batch_.begin() + n);
        }
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t out = dirty_batch_[i];
            ports_[out].dirty = false;
            arbitrate_now<G>(out);
        }
    }
}

template <FabricSim::Granularity G>
void FabricSim::arbitrate_now(std::uint32_t out) {
    Port& o = ports_[out];
    if (o.transmitting) return;
    if (!o.asking) return;
    std::int64_t earliest = -1;
    // The VLs with requesters, in round robin order: those above the one granted last, then the others.
    const std::uint32_t above = vls_above(o.asking, o.rr_vl);
    const std::uint32_t in_order[2] = {above, o.asking & ~above};
    for (std::uint32_t vls_left : in_order)
        for (; vls_left; vls_left &= vls_left - 1) {
            const auto vl = static_cast<std::uint32_t>(std::countr_zero(vls_left));
            // Round robin: the first requester after the last one granted on this VL.
            std::uint32_t min_need = UINT32_MAX;
            if (o.host != none) { // an adapter: its flows, by destination
                const AdapterFlows& flows = flows_[std::size_t{o.host} * vls_ + vl];
                auto available = credits_cover(out, vl);
                OutputVl& ov = credits_[queue_index(out, vl)];
                // Credits only grow until a grant: short of the smallest need the last scan found (its
                // flows unchanged since), every flow would be visited in vain.
                if (ov.least_need != 0 && !available(ov.least_need)) {
                    min_need = ov.least_need;
                } else if (ov.short_flows == 0 && !available(timing_.mtu_blocks())) {
                    // No flow's next packet is below a full MTU (the event builder's fragments; only
                    // its small messages are shorter): credits short of one cover none, unvisited.
                    min_need = ov.least_need = timing_.mtu_blocks();
                } else {
                    const std::size_t n = flows.size();
                    std::size_t f = flows.next();
                    for (std::size_t k = 0; k < n; ++k, ++f) {
                        if (f == n) f = 0;
                        if (available(flows[f].need)) {
                            o.rr_vl = static_cast<std::uint8_t>(vl);
                            grant_flow<G>(out, vl, f, flows[f].need);
                            return;
                        }
                        min_need = std::min(min_need, flows[f].need);
                    }
                    ov.least_need = min_need;
                }
                std::int64_t t = time_credits_reach(out, vl, min_need);
                if (t >= 0 && (earliest < 0 || t < earliest)) earliest = t;
                continue;
            }
            const std::uint32_t last = credits_[queue_index(out, vl)].last_granted;
            const SwitchRequests::Output inputs = requests(out, vl);
            auto available = credits_cover(out, vl);
            // Requester `pos`, in round robin order: granted if the credits cover its need.
            auto granted = [&](std::uint32_t pos) {
                const std::uint32_t need = inputs[pos].need;
                if (!available(need)) {
                    min_need = std::min(min_need, need);
                    return false;
                }
                o.rr_vl = static_cast<std::uint8_t>(vl);
                credits_[queue_index(out, vl)].last_granted = pos;
                grant_input<G>(out, vl, pos, need);
                return true;
            };
            if (inputs.visit_from(SwitchRequests::start_after(last), granted)) return;
            credits_[queue_index(out, vl)].least_need = min_need;
            std::int64_t t = time_credits_reach(out, vl, min_need);
            if (t >= 0 && (earliest < 0 || t < earliest)) earliest = t;
        }
    port_counters_.start_waiting(out, now_);
    if (earliest >= 0 && (o.wake_at < 0 || earliest < o.wake_at)) {
        o.wake_at = earliest;
        queue_.push(earliest, wake, out);
    }
}

template <FabricSim::Granularity G>
void FabricSim::grant_flow(std::uint32_t out, std::uint32_t vl, std::size_t f, std::uint32_t need) {
    Port& o = ports_[out];
    take_credits(out, vl, need);
    OutputVl& ov = credits_[queue_index(out, vl)];
    ov.least_need = 0; // its flows change: unknown until the next scan
    ov.short_flows -= need < timing_.mtu_blocks();
    // The adapter cuts the next packet of the flow's head message.
    AdapterFlows& flows = flows_[std::size_t{o.host} * vls_ + vl];
    const AdapterFlows::Flow& flow = flows[f];
    const std::uint32_t payload = timing_.next_payload(flow.left);
    std::uint32_t pk = alloc_packet<G>();
    Packet& p = packets_[pk];
    p.message = flow.head;
    p.dst_host = flow.dst;
    p.dst_lid = host_lid_[flow.dst];
    p.vl = vl;
    p.payload = payload;
    p.wire = options_.ib.wire_bytes(payload);
    p.blocks = need;
    p.chunks = timing_.chunks(p.blocks);
    p.created = now_;
    p.last_in = now_; // in the adapter's memory
    p.pace_count = 0;
    if constexpr (G == Granularity::chunks) std::fill_n(arrived(pk), max_hops, std::uint16_t{0});
    hosts_.started(o.host, payload); // counted as it starts (see in_flight_payload)
    const std::uint64_t left = flows.cut(f, payload);
    p.last_of_message = left == 0;
    if (left > 0) {
        flows.set_need(f, timing_.next_packet_blocks(left));
        ov.short_flows += flow.need < timing_.mtu_blocks();
    } else if (const std::uint32_t next = messages_[flow.head].next; next != none) {
        flows.advance(f, next, messages_[next].bytes, timing_.next_packet_blocks(messages_[next].bytes));
        ov.short_flows += flow.need < timing_.mtu_blocks();
    } else {
        flows.remove(f);
        if (flows.empty()) o.asking &= static_cast<std::uint16_t>(~(1u << vl));
    }
    if (options_.checks) check_short_flows(out, vl);
    prefetch_next_grant(out, vl);
    o.cur_packet = pk;
    o.cur_queue = none;
    o.cur_hop = 0;
    start_packet<G>(out);
}

template <FabricSim::Granularity G>
void FabricSim::grant_input(std::uint32_t out, std::uint32_t vl, std::uint32_t requester, std::uint32_t need) {
    Port& o = ports_[out];
    // The head's packet as it asked (the line arbitration just read), not from its queue entry (a miss).
    SwitchRequests::Output inputs = requests(out, vl);
    const std::uint32_t pk = inputs[requester].packet;
    __builtin_prefetch(&packets_[pk]); // asked beside the queue's lines, not after them
    take_credits(out, vl, need);
    if (!inputs.withdraw(requester)) o.asking &= static_cast<std::uint16_t>(~(1u << vl));
    prefetch_next_grant(out, vl);
    const std::uint32_t q = queue_index(port_base_[o.device] + requester, vl);
    if (options_.checks && queues_[q].ring[queues_[q].head].packet != pk) check_failed("an input's request is not for its head packet");
    o.cur_packet = pk;
    o.cur_queue = q;
    o.cur_hop = static_cast<std::uint8_t>(packets_[pk].hop + 1);
    // The packet behind becomes the head once this one is sent, a packet's time from now: what it
    // will touch is asked from memory now (a run waits on memory more than it computes).
    const InputQueue& iq = queues_[q];
    o.behind_known = iq.size > 1;
    if (iq.size > 1) {
        const QueueEntry& behind = iq.ring[(iq.head + 1) & (iq.capacity - 1)];
        o.behind = behind;
        __builtin_prefetch(&packets_[behind.packet]);
        __builtin_prefetch(&ports_[iq.out(behind)]);
        __builtin_prefetch(&credits_[queue_index(iq.out(behind), vl)]);
    }
    start_packet<G>(out);
}

void FabricSim::prefetch_next_grant(std::uint32_t out, std::uint32_t vl) {
    const Port& o = ports_[out];
    if (!o.asking) return;
    // With traffic on several VLs the next grant is mostly on another VL than this one.
    const std::uint32_t next_vl = first_vl_after(o.asking, vl);
    const OutputVl& ov = credits_[queue_index(out, next_vl)];
    const char* credits = reinterpret_cast<const char*>(&ov);
    __builtin_prefetch(credits + 64); // its ramps
    if (o.host != none) { // an adapter: the flow its round robin visits first
        __builtin_prefetch(credits);
        const AdapterFlows& flows = flows_[std::size_t{o.host} * vls_ + next_vl];
        if (!flows.empty()) __builtin_prefetch(&flows.first_to_visit());
        return;
    }
    // A switch: the next requester in round robin order is the likely next grant, and its
    // packet's line is then the grant's first miss: asked from memory now, it is still in the
    // outer cache by then.
    const SwitchRequests::Output inputs = requests(out, next_vl);
    const std::uint32_t next = inputs.first_from(SwitchRequests::start_after(ov.last_granted));
    if (next != SwitchRequests::none) __builtin_prefetch(&packets_[inputs[next].packet]);
}

template <FabricSim::Granularity G>
void FabricSim::start_packet(std::uint32_t out) {
    Port& o = ports_[out];
    port_counters_.stop_waiting(out, now_);
    o.transmitting = true;
    o.waiting_chunk = false;
    o.next_chunk = 0;
    port_counters_.sent(out).tx_packets++;
    if constexpr (G == Granularity::packets)
        send_packet(out);
    else
        send_chunk(out);
}

void FabricSim::send_chunk(std::uint32_t out) {
    Port& o = ports_[out];
    const Packet& p = packets_[o.cur_packet];
    const std::uint32_t c = o.next_chunk;
    if (o.cur_queue != none && arrived(o.cur_packet)[o.cur_hop - 1] <= c) { // cut-through caught up with the tail
        o.waiting_chunk = true;
        return;
    }
    const std::int64_t start = timing_.chunk_start_ps(link(out), p.blocks, c), end = timing_.chunk_end_ps(link(out), p.wire, p.blocks, c);
    queue_.push(now_ + end - start, tx_done, out);
    // The next hop sees the chunk when all of it has arrived.
    queue_.push(now_ + end - start + link_ps_, arrive, arrivals_.add(Arrival{o.peer, o.cur_packet, o.cur_hop, c}));
}

void FabricSim::send_packet(std::uint32_t out) {
    Port& o = ports_[out];
    Packet& p = packets_[o.cur_packet];
    const LinkTimes& l = link(out);
    const auto [wire, last_flit] = timing_.packet_times(l, p.wire, p.blocks);
    const std::int64_t done = packet_done(out, o.cur_packet, wire, last_flit);
    // Flits leave the input buffer, and reach the next hop, at the link's pace or the packet's.
    const std::int64_t step = done == now_ + wire ? l.flit_ps : std::max(l.flit_ps, (done - now_) / p.blocks);
    queue_.push(done, tx_done, out);
    PortCounters::Sent& counters = port_counters_.sent(out); // counted as it starts (see sent_counters)
    counters.tx_blocks += p.blocks;
    counters.tx_bytes += p.wire;
    if (o.peer_host != none) {
        // A packet into a host needs no event when its head arrives: the adapter sinks every flit
        // as it comes, so its credits come back as a ramp from then, and the packet is delivered
        // with its last flit. (Ramps of one link keep their order: this is its only source.)
        if (o.peer_host != p.dst_host)
            check_failed("packet for host " + std::to_string(p.dst_host) + " delivered to host " + std::to_string(o.peer_host));
        return_credits(o.peer, p.vl, now_ + link_ps_ + credit_ps_, p.blocks, done - now_, step);
        deliver_at(o.cur_packet, done + link_ps_);
        o.free_when_sent = !p.last_of_message;
    } else {
        // The packet enters the next switch a link's latency from now (an event: the switch may
        // lie in another part of the fabric), joins its input queue behind those sent on this
        // link before it, and may be arbitrated once its first flit is in (`after` then).
        const std::int64_t after = (p.wire >= timing_.flit_bytes() ? l.flit_ps : wire) + switch_ps_;
        queue_.push(now_ + link_ps_, enter, arrivals_.add(Arrival{o.peer, o.cur_packet, o.cur_hop, static_cast<std::uint32_t>(after)}));
    }
    if (o.cur_queue != none) {
        // Each flit leaves the input buffer as it is sent: credits return as a per-flit ramp.
        occupancy_change(o.cur_queue, -static_cast<std::int64_t>(p.blocks));
        return_credits(input_of(o.cur_queue, p.vl), p.vl, now_ + credit_ps_, p.blocks, done - now_, step);
    }
}

// Packet mode: when output `out`, starting now, has sent the last flit of `p`, as flit mode gives
// it flit by flit: a flit leaves at the link's rate once it is wholly in. Through a tandem of
// links, flit i is in at the latest over the packet's paces of head + (64 i B at that pace); a
// pace faster than a link's does not show after it. So only the flit before the short last one
// and the last one can hold the end back (full flits come in no faster than they go out), and a
// packet keeps one pace per slower link it crossed. Exact when a byte takes whole picoseconds
// (SDR to NDR; FDR rounds, within a picosecond or two per hop).
std::int64_t FabricSim::packet_done(std::uint32_t out, std::uint32_t pk, std::int64_t wire, std::int64_t last) {
    const LinkTimes& l = link(out);
    Packet& p = packets_[pk];
    if (p.pace_count == 1 && p.pace.gbps == l.gbps && p.wire == timing_.mtu_wire() && p.blocks >= 2) {
        // The common case, a full MTU after a link of this one's rate: the loop below, unrolled.
        const std::int64_t done = std::max({now_ + wire, p.last_in + last, p.pace.head + l.mtu_body_ps + l.flit_ps + last});
        p.pace.head = now_ + l.flit_ps + link_ps_;
        p.last_in = done + link_ps_;
        return done;
    }
    const std::uint64_t flit = timing_.flit_bytes();
    std::int64_t done = now_ + wire;
    if (p.blocks >= 2) {
        done = std::max(done, p.last_in + last);
        for (std::uint32_t k = 0; k < p.pace_count; ++k) {
            const Pace& in = pace(pk, k);
            if (in.gbps > l.gbps) continue;
            // All but the last two flits at the pace's rate: for a full MTU at this link's own
            // rate, the port has that time.
            const bool own_mtu = in.gbps == l.gbps && p.wire == timing_.mtu_wire();
            const std::int64_t body = own_mtu ? l.mtu_body_ps : serialisation_ps((p.blocks - 2) * flit, in.gbps);
            done = std::max(done, in.head + body + l.flit_ps + last);
        }
    }
    // The paces at the next hop: this link's, and those slower than it, each one flit later.
    if (p.pace_count == 0 || (p.pace_count == 1 && p.pace.gbps >= l.gbps)) { // none slower
        p.pace = {now_ + l.flit_ps + link_ps_, l.gbps};
        p.pace_count = 1;
        p.last_in = done + link_ps_;
        return done;
    }
    Pace next[max_paces + 1];
    std::uint32_t n = 0;
    next[n++] = {now_ + l.flit_ps + link_ps_, l.gbps};
    for (std::uint32_t k = 0; k < p.pace_count; ++k) {
        const Pace& in = pace(pk, k);
        if (in.gbps < l.gbps) next[n++] = {in.head + l.flit_ps + link_ps_, in.gbps};
    }
    std::uint8_t kept = 0;
    for (std::uint32_t a = 0; a < n; ++a) { // drop a pace that another is never earlier than
        bool dominated = false;
        for (std::uint32_t b = 0; b < n && !dominated; ++b)
            dominated = b != a && next[b].head >= next[a].head && next[b].gbps <= next[a].gbps &&
                (next[b].head != next[a].head || next[b].gbps != next[a].gbps || b < a);
        if (!dominated && kept < max_paces) pace(pk, kept++) = next[a];
    }
    p.pace_count = kept;
    p.last_in = done + link_ps_;
    return done;
}

// ---- credits ----------------------------------------------------------------------------------

void FabricSim::return_credits(std::uint32_t in, std::uint32_t vl, std::int64_t base, std::uint32_t blocks, std::int64_t total,
                               std::int64_t step) {
    const std::uint32_t out = ports_[in].peer;
    const std::size_t i = queue_index(out, vl);
    if (total > LinkCredits::max_ramp_ps || step > LinkCredits::max_ramp_ps)
        check_failed("a credit ramp of " + std::to_string(total) + " ps");
    credits_.give_back(i, {base, static_cast<std::int32_t>(total), static_cast<std::int32_t>(step), blocks}, now_);
    if (options_.checks) {
        const std::int64_t held = credits_.held(i);
        if (held > capacity_)
            check_failed("port " + std::to_string(out) + " VL " + std::to_string(vl) + " would hold " + std::to_string(held) +
                         " credits for a buffer of " + std::to_string(capacity_));
    }
    // Wakes the output if it waits for credits (a bit per port: the port's own line stays cold).
    if (is_waiting(out)) wake_earlier(out, vl);
}

// The ramp just queued starts after now, so a port waiting for credits can grant nothing yet:
// arbitrating again would find what it found when it began to wait, but for this VL's wake time.
// That is all that is computed here, from the smallest need that arbitration kept. A port marked
// to arbitrate at the end of this instant (a new requester) does it in full then.
void FabricSim::wake_earlier(std::uint32_t out, std::uint32_t vl) {
    Port& o = ports_[out];
    if (o.dirty || !(o.asking >> vl & 1)) return;
    const std::int64_t t = time_credits_reach(out, vl, credits_[queue_index(out, vl)].least_need);
    if (t >= 0 && (o.wake_at < 0 || t < o.wake_at)) {
        o.wake_at = t;
        queue_.push(t, wake, out);
    }
}

void FabricSim::take_credits(std::uint32_t out, std::uint32_t vl, std::uint32_t blocks) {
    if (credits_.take(queue_index(out, vl), blocks, now_) < 0)
        check_failed("credits of port " + std::to_string(out) + " VL " + std::to_string(vl) + " below zero");
}

// ---- packets and checks ------------------------------------------------------------------------

template <FabricSim::Granularity G>
std::uint32_t FabricSim::alloc_packet() {
    ++live_packets_;
    if (!free_packets_.empty()) {
        std::uint32_t i = free_packets_.back();
        free_packets_.pop_back();
        return i;
    }
    packets_.emplace_back();
    extra_paces_.resize(packets_.size() * (max_paces - 1));
    if constexpr (G == Granularity::chunks) arrived_.resize(packets_.size() * max_hops);
    return static_cast<std::uint32_t>(packets_.size() - 1);
}

void FabricSim::check_occupancy(std::uint32_t q, std::int64_t blocks) {
    occupancy_[q] += blocks;
    if (occupancy_[q] > capacity_ || occupancy_[q] < 0)
        check_failed("input buffer of port " + std::to_string(port_of(q)) + " VL " + std::to_string(vl_of(q)) + " holds " +
                     std::to_string(occupancy_[q]) + " of " + std::to_string(capacity_) + " blocks");
}

void FabricSim::check_short_flows(std::uint32_t port, std::uint32_t vl) {
    const std::size_t count = flows_[std::size_t{ports_[port].host} * vls_ + vl].count_below(timing_.mtu_blocks());
    if (static_cast<std::uint32_t>(count) != credits_[queue_index(port, vl)].short_flows)
        check_failed("host " + std::to_string(ports_[port].host) + " VL " + std::to_string(vl) + " counts " +
                     std::to_string(credits_[queue_index(port, vl)].short_flows) + " flows below a full packet, holds " +
                     std::to_string(count));
}

void FabricSim::check_failed(const std::string& what) const {
    throw SimCheckError("simulator invariant broken at " + std::to_string(now_) + " ps: " + what);
}

std::uint64_t routing_table_bytes(const Topology& topology) {
    return 2 * std::uint64_t{topology.switches().size()} * (topology.max_lid() + 1);
}

std::uint64_t simulator_bytes(const Topology& topology) {
    std::uint64_t ports = 0;
    for (const auto& d : topology.devices()) ports += d.ports.size();
    return routing_table_bytes(topology) + 1024 * ports;
}

void limit_to_simulator(FabricOptions& options, std::uint64_t memory, HostState state) {
    const std::uint64_t available = memory ? memory : available_memory_bytes();
    options.check_size = [available, given = memory != 0, state](const Topology& topology) {
        const std::uint64_t hosts = topology.hosts().size();
        const std::uint64_t units = state.fixed + state.per_host * hosts + state.per_pair * hosts * hosts;
        const std::uint64_t need = simulator_bytes(topology) + units;
        if (need <= available) return;
        std::string parts = "the simulator's tables " + format_size_about(simulator_bytes(topology)) +
            ", of which the routing tables (2 B per switch and LID) " + format_size_about(routing_table_bytes(topology));
        if (!state.what.empty()) parts += "; " + state.what + " " + format_size_about(units);
        throw std::invalid_argument("simulating " + std::to_string(hosts) + " hosts and " + std::to_string(topology.switches().size()) +
                                    " switches needs about " + format_size_about(need) + " (" + parts + "), more than the " +
                                    (given ? format_size(available) : format_size_about(available)) +
                                    (given ? " of --sim-memory" : " of memory available here"));
    };
}

} // namespace evb::netsim
