#include "units/traffic_receiver.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace evb {

TrafficReceiver::TrafficReceiver(const UnitSetup& setup, std::uint32_t index, MemoryPool& slots)
    : setup_(setup), config_(setup.config), index_(index), pool_(slots), mix_(config_),
      pattern_(config_.benchmark, config_.nodes, config_.shift), senders_(config_.nodes) {
    for (auto& s : senders_) {
        s.pieces.assign(config_.receive_slots(), 0);
        s.granted_at.assign(config_.receive_slots(), Picoseconds(0));
    }
}

void TrafficReceiver::on_start(Context& ctx) {
    const std::uint64_t all = config_.receive_slots() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << config_.receive_slots()) - 1;
    for (std::uint32_t j = 0; j < senders_.size(); ++j) {
        if (pattern_.commanded())
            for (std::uint32_t slot = 0; slot < config_.receive_slots(); ++slot) grant(ctx, j, std::uint64_t{1} << slot);
        else
            grant(ctx, j, all);
    }
}

void TrafficReceiver::grant(Context& ctx, std::uint32_t sender, std::uint64_t slots) {
    auto& s = senders_[sender];
    for (std::uint64_t m = slots; m; m &= m - 1) s.granted_at[static_cast<std::size_t>(std::countr_zero(m))] = ctx.now();
    Message g{};
    g.type = MessageType::grant;
    g.count = slots;
    g.rkey = pool_.remote_key();
    g.offset = pool_.offset_of(block_of(sender, 0));
    ctx.send({Role::readout, sender}, g);
}

void TrafficReceiver::on_message(Context& ctx, const Message& msg) {
    if (msg.type != MessageType::end || msg.from != Role::readout || msg.from_index >= senders_.size() || senders_[msg.from_index].ended) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    auto& s = senders_[msg.from_index];
    s.ended = true;
    s.expected = msg.count;
    ++ended_;
}

bool TrafficReceiver::finished() const {
    if (ended_ < senders_.size()) return false;
    for (const auto& s : senders_)
        if (s.received < s.expected) return false;
    return true;
}

void TrafficReceiver::on_completion(Context& ctx, const WriteCompletion& c) {
    auto& st = ctx.stats();
    std::uint32_t slot = WriteImm::slot(c.imm), piece = WriteImm::piece(c.imm), sender = WriteImm::source(c.imm);
    bool known = c.kind == WriteCompletion::Kind::write_arrived && sender < senders_.size() && slot < config_.receive_slots() &&
        piece < mix_.pieces();
    // A piece must land inside its slot (its exact place depends on the size in the header).
    std::uint64_t start = known ? pool_.offset_of(block_of(sender, slot)) : 0;
    if (!known || c.offset < start || c.offset >= start + config_.fragment_stride() || (senders_[sender].pieces[slot] & (1u << piece))) {
        ++st.errors.unexpected;
        ctx.log().error("receiver {}: unexpected write (sender {}, slot {}, piece {}, offset {})", index_, sender, slot, piece, c.offset);
        return;
    }
    auto& got = senders_[sender].pieces[slot];
    got |= 1u << piece;
    ++st.writes_in;
    st.bytes_in += c.length;
    if (config_.same_node(sender, index_)) st.bytes_in_local += c.length;
    if (got == mix_.all_pieces()) take(ctx, sender, slot);
}

// A whole message is in its slot: check it, count it, and give the slot back.
void TrafficReceiver::take(Context& ctx, std::uint32_t sender, std::uint32_t slot) {
    auto& st = ctx.stats();
    auto& s = senders_[sender];
    s.pieces[slot] = 0;
    const std::byte* message = pool_.block(block_of(sender, slot));
    FragmentHeader h;
    std::memcpy(&h, message, sizeof h);
    const std::uint64_t seq = h.event;
    const std::uint32_t size = setup_.sizer.size(seq, sender);
    const bool full = config_.verify == Verify::full;
    auto verdict = check_mixed_fragment(mix_, message, seq, sender, size, full);
    if (verdict == FragmentCheck::bad_header) {
        ++st.errors.bad_header;
        ctx.log().error("receiver {}: bad header in a message from sender {}", index_, sender);
    } else if (sequence_is_new(ctx, s, sender, seq)) {
        if (verdict == FragmentCheck::bad_payload) {
            ++st.errors.bad_payload;
            ctx.log().error("receiver {}: payload mismatch in message {} from sender {}", index_, seq, sender);
        }
        ++s.received;
        ++st.fragments_in;
        Picoseconds now = ctx.now();
        if (st.events_built == 0) st.first_build = now;
        st.last_build = now;
        ++st.events_built;
        if (pattern_.commanded()) st.latency.record(now - s.granted_at[slot]);
        if (config_.benchmark == Benchmark::shift_scan) {
            if (st.phases.size() < config_.nodes) st.phases.resize(config_.nodes);
            std::uint32_t shift = pattern_.shift_between(sender, index_);
            PhaseFlow& flow = st.phases[shift];
            // The first w messages may share the receiver's link with the previous phase's
            // tail (w in flight per sender); what arrives after the phase's end shares it with
            // the next phase.
            bool steady = flow.messages >= config_.in_flight && (config_.phase_messages || now <= config_.phase_time * (shift + 1));
            flow.add(std::uint64_t{size} + config_.meta_bytes(), now, steady);
        }
    }
    // Plain benchmarks hand slots back half a window at a time; commanded ones one by one.
    s.to_grant |= std::uint64_t{1} << slot;
    auto batch = static_cast<int>(pattern_.commanded() ? 1 : std::max(1u, config_.in_flight / 2));
    if (std::popcount(s.to_grant) >= batch) {
        grant(ctx, sender, s.to_grant);
        s.to_grant = 0;
    }
}

bool TrafficReceiver::sequence_is_new(Context& ctx, Sender& s, std::uint32_t sender, std::uint64_t seq) {
    if (seq < s.next_seq || seq - s.next_seq >= 64 || (s.seen >> (seq - s.next_seq)) & 1) {
        ++ctx.stats().errors.duplicate;
        ctx.log().error("receiver {}: message {} from sender {} again or out of its window", index_, seq, sender);
        return false;
    }
    s.seen |= std::uint64_t{1} << (seq - s.next_seq);
    while (s.seen & 1) {
        s.seen >>= 1;
        ++s.next_seq;
    }
    return true;
}

void TrafficReceiver::on_stop(Context& ctx, bool in_flight_is_missing) {
    if (!in_flight_is_missing) return;
    for (const auto& s : senders_)
        if (s.received < s.expected) ctx.stats().errors.missing += s.expected - s.received;
}

} // namespace evb
