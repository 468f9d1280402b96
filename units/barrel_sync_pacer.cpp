#include "units/barrel_sync_pacer.hpp"

namespace evb {

BarrelSyncPacer::BarrelSyncPacer(Builder& bu, std::uint32_t self, std::uint32_t builders, std::uint32_t sources, std::uint32_t slots)
    : bu_(bu), self_(self), sources_(sources), barrier_(self, builders), start_phase_(slots, 0) {}

void BarrelSyncPacer::start(Context& ctx) {
    enter_phase(ctx);
    pump(ctx);
}

void BarrelSyncPacer::event_begun(Context& ctx, std::uint32_t slot) {
    const bool join_now = phase_entered_ && !barrier_.reported();
    start_phase_[slot] = barrier_.phase() + (phase_entered_ && !join_now ? 1 : 0);
    if (join_now) {
        ++outstanding_;
        bu_.request(ctx, slot, ru_of_phase());
    }
}

void BarrelSyncPacer::on_phase_done(Context& ctx, const Message& msg) {
    if (!barrier_.peer_done(msg.from_index, msg.count, msg.slot == 1)) {
        ++ctx.stats().errors.unexpected;
        ctx.log().error("BU {}: phase {} done from BU {} while in phase {}", self_, msg.count, msg.from_index, barrier_.phase());
    }
    pump(ctx);
}

bool BarrelSyncPacer::any_step_left() const {
    for (std::uint32_t slot = 0; slot < start_phase_.size(); ++slot)
        if (bu_.has_step_left(slot)) return true;
    return false;
}

void BarrelSyncPacer::enter_phase(Context& ctx) {
    phase_entered_ = true;
    const std::uint64_t phase = barrier_.phase();
    ctx.log().trace("BU {} enters phase {}", self_, phase);
    for (std::uint32_t slot = 0; slot < start_phase_.size(); ++slot) {
        if (start_phase_[slot] <= phase && bu_.has_step_left(slot)) {
            ++outstanding_;
            bu_.request(ctx, slot, ru_of_phase());
        }
    }
}

void BarrelSyncPacer::pump(Context& ctx) {
    for (;;) {
        if (barrier_.finished()) return;
        if (!barrier_.reported() && outstanding_ == 0) {
            const bool done = bu_.done_building();
            // Alone (every other BU finished) and idle: wait for work or the end. Alone with
            // events under way: go on through the phases without waiting for anyone.
            if (!done && !barrier_.anyone_waits() && !any_step_left()) return;
            barrier_.local_done(ctx, done);
        }
        if (!barrier_.can_advance()) return;
        barrier_.advance();
        enter_phase(ctx);
    }
}

} // namespace evb
