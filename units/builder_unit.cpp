#include "units/builder_unit.hpp"

#include <algorithm>
#include <cstring>

namespace evb {

BuilderUnit::BuilderUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& slots)
    : setup_(setup), config_(setup.config), index_(index), nodes_(setup.config.ru_count()), pool_(slots),
      stride_(setup.config.fragment_stride()), slots_(setup.config.credits), mix_(setup.config),
      received_(setup.config.credits, nodes_, mix_.pieces()), survive_(setup.config.survives_failures()) {
    if (config_.protocol != Protocol::push)
        pull_.emplace(static_cast<PullRequester::Builder&>(*this), setup.schedule,
                      PullRequester::Shape{index, nodes_, config_.credits, config_.parallel, config_.barrel_start});
    if (config_.scheduling == Scheduling::barrel_sync)
        sync_.emplace(static_cast<BarrelSyncPacer::Builder&>(*this), index, config_.bu_count(), nodes_, config_.credits);
    if (config_.protocol == Protocol::pull_no_em)
        own_.emplace(static_cast<OwnEvents::Builder&>(*this),
                     OwnEvents::Shape{index, config_.bu_count(), nodes_, config_.credits, config_.events, config_.duration});
}

bool BuilderUnit::ru_lost(std::uint32_t ru) const { return std::ranges::find(lost_rus_, ru) != lost_rus_.end(); }

bool BuilderUnit::finished() const {
    if (own_) return own_->all_given() && busy_ == 0;
    return end_received_ && built_ == assigned_total_;
}

std::uint64_t BuilderUnit::fragment_offset(const Slot& s, std::uint32_t source) const {
    return pool_.offset_of(s.block) + std::uint64_t{source} * stride_;
}

void BuilderUnit::on_start(Context& ctx) {
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
        // Each credit owns a slot for the whole run: memory in use stays c N f (eq. 3.1 / m).
        slots_[i].block = *pool_.acquire();
    }
    if (own_)
        own_->fill(ctx);
    else
        for (std::uint32_t i = 0; i < slots_.size(); ++i) announce(ctx, i);
    if (sync_) sync_->start(ctx);
}

// A slot taken for a new event: nothing received, nothing requested yet.
void BuilderUnit::activate(std::uint32_t slot) {
    auto& s = slots_[slot];
    s.active = true;
    s.assigned = false;
    s.received = 0;
    s.missing = static_cast<std::uint32_t>(lost_rus_.size());
    s.reassigned = false;
    received_.clear(slot);
    ++busy_;
}

void BuilderUnit::announce(Context& ctx, std::uint32_t slot) {
    activate(slot);
    const auto& s = slots_[slot];
    Message m{};
    m.type = MessageType::credit;
    m.slot = slot;
    m.rkey = pool_.remote_key();
    m.offset = pool_.offset_of(s.block);
    ctx.send({Role::manager, 0}, m);
}

// PULL without EM: an event of its own (or taken over from a lost BU) for a free slot.
void BuilderUnit::start_event(Context& ctx, std::uint32_t slot, std::uint64_t event, bool reassigned) {
    activate(slot);
    slots_[slot].reassigned = reassigned;
    begin(ctx, slot, event);
}

void BuilderUnit::on_end_now(Context& ctx) {
    if (own_) own_->end_now(ctx);
}

void BuilderUnit::on_message(Context& ctx, const Message& msg) {
    if (msg.type == MessageType::end) {
        end_received_ = true;
        assigned_total_ = msg.count;
        if (sync_) sync_->pump(ctx);
        return;
    }
    if (msg.type == MessageType::takeover && survive_ && own_ && msg.from == Role::readout) {
        own_->on_report(ctx, msg);
        return;
    }
    if (msg.type == MessageType::phase_done && sync_ && msg.from == Role::builder) {
        sync_->on_phase_done(ctx, msg);
        return;
    }
    if (msg.type != MessageType::assign || msg.slot >= slots_.size() || !slots_[msg.slot].active || slots_[msg.slot].assigned) {
        ++ctx.stats().errors.unexpected;
        ctx.log().error("BU {}: unexpected message type {} for slot {}", index_, int(msg.type), msg.slot);
        return;
    }
    slots_[msg.slot].reassigned = msg.count == 1;
    begin(ctx, msg.slot, msg.event);
    if (sync_) sync_->pump(ctx);
}

void BuilderUnit::begin(Context& ctx, std::uint32_t slot, std::uint64_t event) {
    auto& s = slots_[slot];
    s.assigned = true;
    s.event = event;
    s.started = ctx.now();
    if (!pull_) {
        accept_early_fragments(ctx, slot);
        return;
    }
    pull_->begin(slot, event);
    if (sync_)
        sync_->event_begun(ctx, slot);
    else
        pull_->walk(ctx, slot);
}

void BuilderUnit::accept_early_fragments(Context& ctx, std::uint32_t slot) {
    const auto& s = slots_[slot];
    for (std::uint32_t src = 0; src < nodes_; ++src) {
        const std::uint32_t got = received_.get(slot, src);
        if (got == 0 || ru_lost(src)) continue;
        if (got == mix_.all_pieces())
            check(ctx, s, src);
        else if (heads_handed_over_) // its last pieces will bring only their own heads
            check_kept_heads(ctx, s, src, got);
    }
    if (all_in(s)) complete(ctx, slot);
}

void BuilderUnit::send_request(Context& ctx, std::uint32_t slot, std::uint32_t ru) {
    const auto& s = slots_[slot];
    Message m{};
    m.type = MessageType::request;
    m.event = s.event;
    m.slot = slot;
    m.rkey = pool_.remote_key();
    m.offset = fragment_offset(s, ru);
    // The request trace (--log-level trace) compares transports message for message.
    ctx.log().trace("BU {} requests event {} slot {} from RU {}", index_, s.event, slot, ru);
    ctx.send({Role::readout, ru}, m);
}

bool BuilderUnit::has_step_left(std::uint32_t slot) const {
    const Slot& s = slots_[slot];
    return s.active && s.assigned && pull_->has_step_left(slot);
}

void BuilderUnit::check(Context& ctx, const Slot& s, std::uint32_t source) {
    const std::byte* fragment = pool_.data() + fragment_offset(s, source);
    std::uint32_t size = setup_.sizer.size(s.event, source);
    bool full = config_.verify == Verify::full;
    auto verdict = check_mixed_fragment(mix_, fragment, s.event, source, size, full);
    if (verdict == FragmentCheck::ok) return;
    auto& errors = ctx.stats().errors;
    if (verdict == FragmentCheck::bad_header) {
        ++errors.bad_header;
        ctx.log().error("BU {}: bad header in fragment of event {} from RU {}", index_, s.event, source);
    } else {
        ++errors.bad_payload;
        ctx.log().error("BU {}: payload checksum mismatch in fragment of event {} from RU {}", index_, s.event, source);
    }
}

void BuilderUnit::check_head(Context& ctx, const Slot& s, std::uint32_t source, std::uint32_t piece, const WriteCompletion& c) {
    const bool meta = piece >= mix_.data_pieces();
    if (!meta && piece != 0) return; // a data piece after the first carries no header
    const std::uint32_t size = meta ? mix_.meta_size() : setup_.sizer.size(s.event, source);
    if (c.head_bytes < fragment_header_size ||
        check_fragment(c.head, s.event, source, size, false, meta ? mix_.tag(piece) : 0) != FragmentCheck::ok) {
        ++ctx.stats().errors.bad_header;
        ctx.log().error("BU {}: bad header in fragment of event {} from RU {}", index_, s.event, source);
    }
}

void BuilderUnit::check_kept_heads(Context& ctx, const Slot& s, std::uint32_t source, std::uint32_t pieces) {
    const std::uint32_t size = setup_.sizer.size(s.event, source);
    for (std::uint32_t piece = 0; piece < mix_.pieces(); ++piece) {
        if (!(pieces & (1u << piece))) continue;
        const std::uint64_t at = fragment_offset(s, source) + mix_.piece(piece, size).offset;
        WriteCompletion kept;
        kept.head = pool_.data() + at;
        kept.head_bytes =
            static_cast<std::uint32_t>(std::min<std::uint64_t>(fragment_header_size, pool_.size() - std::min(at, pool_.size())));
        check_head(ctx, s, source, piece, kept);
    }
}

// A write of a known event must be the piece its immediate names, at that piece's place.
bool BuilderUnit::in_place(const Slot& s, std::uint32_t source, std::uint32_t piece, const WriteCompletion& c) const {
    Piece expected = mix_.piece(piece, setup_.sizer.size(s.event, source));
    return c.offset == fragment_offset(s, source) + expected.offset && c.length == expected.length;
}

void BuilderUnit::on_completion(Context& ctx, const WriteCompletion& c) {
    auto& st = ctx.stats();
    if (c.kind != WriteCompletion::Kind::write_arrived) {
        ++st.errors.unexpected;
        return;
    }
    std::uint32_t slot = WriteImm::slot(c.imm), source = WriteImm::source(c.imm), piece = WriteImm::piece(c.imm);
    // Only PUSH lets fragments land before the slot's event is known.
    bool expected =
        slot < slots_.size() && source < nodes_ && piece < mix_.pieces() && slots_[slot].active && (slots_[slot].assigned || !pull_);
    if (!expected) {
        ++st.errors.unexpected;
        ctx.log().error("BU {}: write from RU {} into idle slot {}", index_, source, slot);
        return;
    }
    auto& s = slots_[slot];
    if (s.assigned && !in_place(s, source, piece, c)) {
        ++st.errors.unexpected;
        ctx.log().error("BU {}: piece {} from RU {} of event {} landed at offset {} with {} B, not at its place", index_, piece, source,
                        s.event, c.offset, c.length);
        return;
    }
    const std::uint32_t got = received_.get(slot, source) | (1u << piece);
    if (got == received_.get(slot, source)) {
        ++st.errors.duplicate;
        ctx.log().error("BU {}: duplicate piece {} from RU {} for event {}", index_, piece, source, s.event);
        return;
    }
    received_.set(slot, source, got);
    ++st.writes_in;
    st.bytes_in += c.length;
    if (config_.same_node(source, index_)) st.bytes_in_local += c.length;
    if (c.head) {
        heads_handed_over_ = true;
        if (s.assigned)
            check_head(ctx, s, source, piece, c);
        else if (c.offset + c.head_bytes <= pool_.size()) // PUSH, event not known yet: kept where the write would land, checked by begin()
            std::memcpy(pool_.data() + c.offset, c.head, c.head_bytes);
    }
    if (got != mix_.all_pieces()) return;
    ++s.received;
    ++st.fragments_in;
    if (pull_)
        pull_->answered(ctx, slot);
    else if (!s.assigned)
        return; // checked when the assignment arrives
    if (!c.head) check(ctx, s, source);
    if (sync_) {
        sync_->transfer_in();
        if (s.received == nodes_) complete(ctx, slot);
        sync_->pump(ctx);
        return;
    }
    if (all_in(s))
        complete(ctx, slot);
    else if (pull_)
        pull_->request_more(ctx, slot);
}

// Fragments from a lost RU will never come: every event under way counts its fragment as lost
// (unless it is already in) and no later event asks for it.
void BuilderUnit::on_unit_lost(Context& ctx, UnitAddress lost) {
    if (!survive_) return;
    if (lost.role == Role::builder && own_ && lost.index < config_.bu_count() && lost.index != index_) {
        own_->builder_lost(ctx, lost.index);
        return;
    }
    if (lost.role != Role::readout || lost.index >= nodes_ || ru_lost(lost.index)) return;
    const std::uint32_t ru = lost.index;
    lost_rus_.push_back(ru);
    for (std::uint32_t i = 0; i < slots_.size(); ++i) {
        auto& s = slots_[i];
        if (!s.active) continue;
        if (received_.get(i, ru) == mix_.all_pieces()) continue;
        received_.set(i, ru, 0);
        ++s.missing;
        if (!s.assigned) continue; // its event is not known yet: begin() takes the loss into account
        if (pull_) pull_->forget(ctx, i, ru); // asked, not in
        if (all_in(s))
            complete(ctx, i);
        else if (pull_)
            pull_->request_more(ctx, i);
    }
    if (own_) own_->ru_lost(ctx); // its report is no longer awaited
}

void BuilderUnit::complete(Context& ctx, std::uint32_t slot) {
    auto& s = slots_[slot];
    auto& st = ctx.stats();
    Picoseconds now = ctx.now();
    st.latency.record(now - s.started);
    if (st.events_built == 0) st.first_build = now;
    st.last_build = now;
    ++st.events_built;
    ++built_;
    if (s.missing) {
        ++st.events_incomplete;
        st.fragments_lost += s.missing;
    }
    if (s.reassigned) ++st.events_rebuilt;
    // The build trace (--log-level trace) shows every event built exactly once, failures or not.
    ctx.log().trace("BU {} built event {}{}", index_, s.event, s.reassigned ? " re-assigned" : "");
    s.active = false;
    s.assigned = false;
    --busy_;
    if (own_)
        own_->fill(ctx);
    else if (!end_received_ || survive_) // surviving: the EM learns from the credit that the event is built
        announce(ctx, slot);
}

void BuilderUnit::on_stop(Context& ctx, bool in_flight_is_missing) {
    for (std::uint32_t i = 0; i < slots_.size() && in_flight_is_missing; ++i) {
        const auto& s = slots_[i];
        if (s.active && s.assigned) ctx.stats().errors.missing += nodes_ - s.received - s.missing;
    }
    // In eq. 3.1's terms: whole fragments, even where only their headers sit in memory.
    ctx.stats().peak_bu_bytes = std::uint64_t{pool_.peak_in_use()} * config_.wire_fragment_stride() * nodes_;
}

} // namespace evb
