#include "netsim/engine/links.hpp"

#include "netsim/engine/fabric_elements.hpp"
#include "netsim/fabric/link_rate.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace evb::netsim {

Links::Links(const SimOptions& options) : timing_(options.ib, options.mode == SimMode::packet ? 0 : options.aggregation) {}

void Links::build(const Topology& topology, const std::vector<std::uint32_t>& host_index) {
    const auto& devices = topology.devices();
    std::uint32_t total_ports = 0;
    for (const auto& d : devices) {
        port_base_.push_back(total_ports);
        total_ports += static_cast<std::uint32_t>(d.ports.size());
    }
    ports_.resize(total_ports);
    port_counters_.reset(total_ports);
    part().port_count = total_ports;
    dirty_.resize(total_ports); // a port is in it at most once (its dirty flag)
    dirty_batch_.resize(total_ports);
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
                double gbps = part().options.ib.link_gbps;
                const std::string& kind = devices[d].link_kinds.empty() ? std::string() : devices[d].link_kinds[p];
                if (part().options.topology_rates && !kind.empty()) {
                    auto rate = link_data_gbps(kind);
                    if (!rate)
                        throw std::invalid_argument(devices[d].name + " port " + std::to_string(p + 1) + ": unknown link '" + kind + "'");
                    gbps = *rate;
                }
                port.rate = timing_.rate_index(gbps);
            }
        }
    }
    // Nearly every event lies within a full packet on the slowest link and a hop's latency.
    std::int64_t span = 0;
    for (const LinkTimes& l : timing_.rates()) span = std::max(span, l.mtu_wire_ps + part().link_ps + part().switch_ps);
    part().queue.cover(span);
    credits_.reset(std::size_t{total_ports} * part().vls, part().capacity);
    occupancy_.assign(std::size_t{total_ports} * part().vls, 0);
}

void Links::assign_part(std::uint32_t self, std::uint32_t parts, const std::vector<std::uint32_t>& part_of_device) {
    self_ = self;
    credits_out_.reset(parts);
    crossings_out_.reset(parts);
    part_of_port_.resize(ports_.size());
    for (std::uint32_t i = 0; i < ports_.size(); ++i) part_of_port_[i] = part_of_device[ports_[i].device];
}

// ---- arbitration ------------------------------------------------------------------------------

void Links::arbitrate(std::uint32_t out) {
    Port& o = ports_[out];
    if (o.transmitting || o.dirty) return;
    o.dirty = true;
    dirty_[dirty_count_++] = out;
    if (o.asking) { // read at the end of the instant: its credit state, both lines (the ramps mostly in the second)
        static_assert(sizeof(OutputVl) == 128);
        const std::uint32_t vl = first_vl_after(o.asking, o.rr_vl);
        const char* credits = reinterpret_cast<const char*>(&credits_[part().queue_index(out, vl)]);
        __builtin_prefetch(credits);
        __builtin_prefetch(credits + 64);
        // and the next switch's input queue a grant sends into (behind the granted packet's line)
        if (o.peer_host == none) switches().prefetch_queue(part().queue_index(o.peer, vl));
    }
}

template <Granularity G>
void Links::arbitrate_dirty_ports() {
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

void Links::on_wake(std::uint32_t out, std::int64_t t) {
    if (ports_[out].wake_at != t) return;
    ports_[out].wake_at = -1;
    arbitrate(out);
}

template <Granularity G>
void Links::arbitrate_now(std::uint32_t out) {
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
            // The device offers its requesters on this VL, in its round robin order: one whose need
            // the credits cover is granted; else the smallest need, which sets the wake.
            std::uint32_t min_need = UINT32_MAX;
            const bool granted = o.host != none ? adapters().offer<G>(out, vl, min_need) : switches().offer<G>(out, vl, min_need);
            if (granted) {
                o.rr_vl = static_cast<std::uint8_t>(vl);
                return;
            }
            const std::int64_t t = time_credits_reach(out, vl, min_need);
            if (t >= 0 && (earliest < 0 || t < earliest)) earliest = t;
        }
    port_counters_.start_waiting(out, part().now);
    if (earliest >= 0 && (o.wake_at < 0 || earliest < o.wake_at)) {
        o.wake_at = earliest;
        part().queue.push(earliest, event::wake, out);
    }
}

// ---- sending ----------------------------------------------------------------------------------

template <Granularity G>
void Links::start_packet(std::uint32_t out) {
    Port& o = ports_[out];
    port_counters_.stop_waiting(out, part().now);
    o.transmitting = true;
    o.waiting_chunk = false;
    o.next_chunk = 0;
    port_counters_.sent(out).tx_packets++;
    if constexpr (G == Granularity::packets)
        send_packet(out);
    else
        send_chunk(out);
}

template <Granularity G>
void Links::on_tx_done(std::uint32_t out) {
    Port& o = ports_[out];
    // Packet mode: the whole packet is one chunk, counted when it started (see sent_counters);
    // the packet itself is not looked at here (its line, written a packet's time ago, a miss).
    if constexpr (G == Granularity::chunks) {
        SimPackets::Packet& p = packets()[o.cur_packet];
        PortCounters::Sent& counters = port_counters_.sent(out);
        const std::uint32_t c = o.next_chunk;
        const std::uint32_t blocks = timing_.chunk_blocks(p.blocks, c);
        counters.tx_blocks += blocks;
        counters.tx_bytes += timing_.chunk_bytes(p.wire, p.blocks, c);
        if (o.cur_queue != none) {
            const std::uint32_t in = part().input_of(o.cur_queue, p.vl);
            occupancy_change(o.cur_queue, -static_cast<std::int64_t>(blocks));
            return_credits(in, p.vl, part().now + part().credit_ps, blocks);
        }
        if (++o.next_chunk < p.chunks) {
            send_chunk(out);
            return;
        }
    }
    o.transmitting = false;
    if (o.free_when_sent) { // see HostAdapters::deliver_at
        o.free_when_sent = false;
        packets().release(o.cur_packet);
    }
    o.cur_packet = none;
    if (o.cur_queue != none) switches().head_sent(o.cur_queue, o.behind_known ? &o.behind : nullptr);
    // An output without requesters would grant nothing; one that comes later asks it itself.
    if (o.asking) arbitrate(out);
}

void Links::chunk_arrived(std::uint32_t out, std::uint32_t queue) {
    Port& o = ports_[out];
    if (o.transmitting && o.cur_queue == queue && o.waiting_chunk) {
        o.waiting_chunk = false;
        send_chunk(out);
    }
}

void Links::send_chunk(std::uint32_t out) {
    Port& o = ports_[out];
    const SimPackets::Packet& p = packets()[o.cur_packet];
    const std::uint32_t c = o.next_chunk;
    if (o.cur_queue != none && packets().arrived(o.cur_packet)[o.cur_hop - 1] <= c) { // cut-through caught up with the tail
        o.waiting_chunk = true;
        return;
    }
    const LinkTimes& l = times(out);
    const std::int64_t start = timing_.chunk_start_ps(l, p.blocks, c), end = timing_.chunk_end_ps(l, p.wire, p.blocks, c);
    part().queue.push(part().now + end - start, event::tx_done, out);
    // The next hop sees the chunk when all of it has arrived.
    part().queue.push(part().now + end - start + part().link_ps, event::arrive, arrivals_.add(Arrival{o.peer, o.cur_packet, o.cur_hop, c}));
}

void Links::send_packet(std::uint32_t out) {
    Port& o = ports_[out];
    SimPackets::Packet& p = packets()[o.cur_packet];
    const LinkTimes& l = times(out);
    const std::int64_t now = part().now;
    const auto [wire, last_flit] = timing_.packet_times(l, p.wire, p.blocks);
    const std::int64_t done = packet_done(out, o.cur_packet, wire, last_flit);
    // Flits leave the input buffer, and reach the next hop, at the link's pace or the packet's.
    const std::int64_t step = done == now + wire ? l.flit_ps : std::max(l.flit_ps, (done - now) / p.blocks);
    part().queue.push(done, event::tx_done, out);
    PortCounters::Sent& counters = port_counters_.sent(out); // counted as it starts (see sent_counters)
    counters.tx_blocks += p.blocks;
    counters.tx_bytes += p.wire;
    if (o.peer_host != none) {
        // A packet into a host needs no event when its head arrives: the adapter sinks every flit
        // as it comes, so its credits come back as a ramp from then, and the packet is delivered
        // with its last flit. (Ramps of one link keep their order: this is its only source.)
        if (o.peer_host != p.dst_host)
            part().check_failed("packet for host " + std::to_string(p.dst_host) + " delivered to host " + std::to_string(o.peer_host));
        return_credits(o.peer, p.vl, now + part().link_ps + part().credit_ps, p.blocks, done - now, step);
        adapters().deliver_at(o.cur_packet, done + part().link_ps);
        o.free_when_sent = !p.last_of_message;
    } else {
        // The packet joins the next switch's input queue now, behind those sent on this link
        // before it, and may ask its output once its first flit is in and switched, a link's
        // latency and `after` from now: an event only if it is the head by then. Into a switch of
        // another part it joins at the window's end (hand_over): the same queue, the same time.
        const std::int64_t after = (p.wire >= timing_.flit_bytes() ? l.flit_ps : wire) + part().switch_ps;
        if (crosses(o.peer)) [[unlikely]]
            hand_over(out, now + part().link_ps + after);
        else
            switches().enter(o.peer, o.cur_packet, o.cur_hop, now + part().link_ps + after);
    }
    if (o.cur_queue != none) {
        // Each flit leaves the input buffer as it is sent: credits return as a per-flit ramp.
        occupancy_change(o.cur_queue, -static_cast<std::int64_t>(p.blocks));
        return_credits(part().input_of(o.cur_queue, p.vl), p.vl, now + part().credit_ps, p.blocks, done - now, step);
    }
}

// The packet is copied: this part frees its own once sent. A link takes at least a window
// (SimPart::window_ps), so the copy may ask its output no earlier than the window's end.
void Links::hand_over(std::uint32_t out, std::int64_t at) {
    Port& o = ports_[out];
    CrossingPacket& c = crossings_out_.to(part_of_port_[o.peer]).emplace_back();
    c.at = at;
    c.in = o.peer;
    c.hop = o.cur_hop;
    c.packet = packets()[o.cur_packet];
    for (std::uint32_t k = 1; k < c.packet.pace_count; ++k) c.paces[k - 1] = packets().pace(o.cur_packet, k);
    c.with_message = c.packet.last_of_message;
    if (c.with_message) c.message = adapters().hand_over(c.packet.message);
    o.free_when_sent = true;
}

void Links::receive(const CrossingPacket& c) {
    const std::uint32_t pk = packets().alloc<Granularity::packets>();
    packets()[pk] = c.packet;
    for (std::uint32_t k = 1; k < c.packet.pace_count; ++k) packets().pace(pk, k) = c.paces[k - 1];
    if (c.with_message) packets()[pk].message = adapters().adopt(c.message);
    switches().enter(c.in, pk, c.hop, c.at);
}

// Packet mode: when output `out`, starting now, has sent the last flit of `p`, as flit mode gives
// it flit by flit: a flit leaves at the link's rate once it is wholly in. Through a tandem of
// links, flit i is in at the latest over the packet's paces of head + (64 i B at that pace); a
// pace faster than a link's does not show after it. So only the flit before the short last one
// and the last one can hold the end back (full flits come in no faster than they go out), and a
// packet keeps one pace per slower link it crossed. Exact when a byte takes whole picoseconds
// (SDR to NDR; FDR rounds, within a picosecond or two per hop).
std::int64_t Links::packet_done(std::uint32_t out, std::uint32_t pk, std::int64_t wire, std::int64_t last) {
    using Pace = SimPackets::Pace;
    constexpr std::uint32_t max_paces = SimPackets::max_paces;
    const LinkTimes& l = times(out);
    SimPackets::Packet& p = packets()[pk];
    const std::int64_t now = part().now, link_ps = part().link_ps;
    if (p.pace_count == 1 && p.pace.gbps == l.gbps && p.wire == timing_.mtu_wire() && p.blocks >= 2) {
        // The common case, a full MTU after a link of this one's rate: the loop below, unrolled.
        const std::int64_t done = std::max({now + wire, p.last_in + last, p.pace.head + l.mtu_body_ps + l.flit_ps + last});
        p.pace.head = now + l.flit_ps + link_ps;
        p.last_in = done + link_ps;
        return done;
    }
    const std::uint64_t flit = timing_.flit_bytes();
    std::int64_t done = now + wire;
    if (p.blocks >= 2) {
        done = std::max(done, p.last_in + last);
        for (std::uint32_t k = 0; k < p.pace_count; ++k) {
            const Pace& in = packets().pace(pk, k);
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
        p.pace = {now + l.flit_ps + link_ps, l.gbps};
        p.pace_count = 1;
        p.last_in = done + link_ps;
        return done;
    }
    Pace next[max_paces + 1];
    std::uint32_t n = 0;
    next[n++] = {now + l.flit_ps + link_ps, l.gbps};
    for (std::uint32_t k = 0; k < p.pace_count; ++k) {
        const Pace& in = packets().pace(pk, k);
        if (in.gbps < l.gbps) next[n++] = {in.head + l.flit_ps + link_ps, in.gbps};
    }
    std::uint8_t kept = 0;
    for (std::uint32_t a = 0; a < n; ++a) { // drop a pace that another is never earlier than
        bool dominated = false;
        for (std::uint32_t b = 0; b < n && !dominated; ++b)
            dominated = b != a && next[b].head >= next[a].head && next[b].gbps <= next[a].gbps &&
                (next[b].head != next[a].head || next[b].gbps != next[a].gbps || b < a);
        if (!dominated && kept < max_paces) packets().pace(pk, kept++) = next[a];
    }
    p.pace_count = kept;
    p.last_in = done + link_ps;
    return done;
}

// ---- credits ----------------------------------------------------------------------------------

void Links::return_credits(std::uint32_t in, std::uint32_t vl, std::int64_t base, std::uint32_t blocks, std::int64_t total,
                           std::int64_t step) {
    if (total > LinkCredits::max_ramp_ps || step > LinkCredits::max_ramp_ps)
        part().check_failed("a credit ramp of " + std::to_string(total) + " ps");
    const Port& input = ports_[in];
    const LinkCredits::Ramp ramp{base, static_cast<std::int32_t>(total), static_cast<std::int32_t>(step), blocks};
    if (input.host == none && input.peer_host == none && part().window_ps > 0) { // between two switches
        if (crosses(input.peer))
            credits_out_.to(part_of_port_[input.peer]).push_back(CreditReturn{input.peer, vl, ramp});
        else
            pending_credits_.push_back(CreditReturn{input.peer, vl, ramp});
        return;
    }
    give_credits(input.peer, vl, ramp);
}

// In the order returned: an output's credits come from one input, one packet after another, so
// its ramps stay in time order; the wakes they set do not depend on the order between outputs.
void Links::give_pending_credits() {
    for (const CreditReturn& c : pending_credits_) give_credits(c.out, c.vl, c.ramp);
    pending_credits_.clear();
}

void Links::give_credits(std::uint32_t out, std::uint32_t vl, const LinkCredits::Ramp& ramp) {
    const std::size_t i = part().queue_index(out, vl);
    credits_.give_back(i, ramp, part().now);
    if (part().checks) {
        const std::int64_t held = credits_.held(i);
        if (held > part().capacity)
            part().check_failed("port " + std::to_string(out) + " VL " + std::to_string(vl) + " would hold " + std::to_string(held) +
                                " credits for a buffer of " + std::to_string(part().capacity));
    }
    // Wakes the output if it waits for credits (a bit per port: the port's own line stays cold).
    if (is_waiting(out)) wake_earlier(out, vl);
}

// The ramp just queued starts after now, so a port waiting for credits can grant nothing yet:
// arbitrating again would find what it found when it began to wait, but for this VL's wake time.
// That is all that is computed here, from the smallest need that arbitration kept. A port marked
// to arbitrate at the end of this instant (a new requester) does it in full then.
void Links::wake_earlier(std::uint32_t out, std::uint32_t vl) {
    Port& o = ports_[out];
    if (o.dirty || !(o.asking >> vl & 1)) return;
    const std::int64_t t = time_credits_reach(out, vl, credits_[part().queue_index(out, vl)].least_need);
    if (t >= 0 && (o.wake_at < 0 || t < o.wake_at)) {
        o.wake_at = t;
        part().queue.push(t, event::wake, out);
    }
}

void Links::take_credits(std::uint32_t out, std::uint32_t vl, std::uint32_t blocks) {
    if (credits_.take(part().queue_index(out, vl), blocks, part().now) < 0)
        part().check_failed("credits of port " + std::to_string(out) + " VL " + std::to_string(vl) + " below zero");
}

// ---- checks and counters ----------------------------------------------------------------------

void Links::check_occupancy(std::uint32_t q, std::int64_t blocks) {
    occupancy_[q] += blocks;
    if (occupancy_[q] > part().capacity || occupancy_[q] < 0)
        part().check_failed("input buffer of port " + std::to_string(part().port_of(q)) + " VL " + std::to_string(part().vl_of(q)) +
                            " holds " + std::to_string(occupancy_[q]) + " of " + std::to_string(part().capacity) + " blocks");
}

void Links::verify_credits() const {
    for (std::uint32_t i = 0; i < credits_.size(); ++i) {
        if (ports_[part().port_of(i)].peer == none) continue;
        const std::int64_t c = credits_.held(i);
        if (c != part().capacity)
            part().check_failed("port " + std::to_string(part().port_of(i)) + " VL " + std::to_string(part().vl_of(i)) + " ends with " +
                                std::to_string(c) + " of " + std::to_string(part().capacity) + " credits: flits lost or duplicated");
    }
}

PortCounters::Sent Links::sent_counters(std::uint32_t port) const {
    PortCounters::Sent c = port_counters_.sent(port);
    const Port& o = ports_[port];
    if (part().options.mode == SimMode::packet && o.transmitting) { // counted as it started, not yet sent
        c.tx_blocks -= packets()[o.cur_packet].blocks;
        c.tx_bytes -= packets()[o.cur_packet].wire;
    }
    return c;
}

double Links::slowest_gbps() const {
    double slowest = 0;
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].peer != none && (slowest == 0 || times(i).gbps < slowest)) slowest = times(i).gbps;
    return slowest;
}

std::string Links::rates() const {
    std::map<double, std::uint64_t> cables;
    for (std::uint32_t i = 0; i < ports_.size(); ++i)
        if (ports_[i].peer != none && ports_[i].peer > i) ++cables[times(i).gbps];
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

template void Links::arbitrate_dirty_ports<Granularity::chunks>();
template void Links::arbitrate_dirty_ports<Granularity::packets>();
template void Links::start_packet<Granularity::chunks>(std::uint32_t);
template void Links::start_packet<Granularity::packets>(std::uint32_t);
template void Links::on_tx_done<Granularity::chunks>(std::uint32_t);
template void Links::on_tx_done<Granularity::packets>(std::uint32_t);

} // namespace evb::netsim
