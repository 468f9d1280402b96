#include "units/phase_barrier.hpp"

namespace evb {

void PhaseBarrier::local_done(Context& ctx, bool finished) {
    local_done_ = true;
    if (finished) finished_[self_] = true;
    for (std::uint32_t b = 0; b < finished_.size(); ++b) {
        if (b == self_ || finished_[b]) continue;
        Message m{};
        m.type = MessageType::phase_done;
        m.count = phase_;
        m.slot = finished ? 1 : 0;
        ctx.send({Role::builder, b}, m);
    }
    ctx.log().trace("BU {} phase {} done{}", self_, phase_, finished ? " (finished)" : "");
}

bool PhaseBarrier::peer_done(std::uint32_t peer, std::uint64_t phase, bool finished) {
    if (peer >= finished_.size() || peer == self_ || finished_[peer] || (phase != phase_ && phase != phase_ + 1)) return false;
    if (finished) {
        // Done now and in every later phase: counted apart, so out of done_ where it was counted.
        // Reports come in phase order: a last report of phase_ + 1 means phase_ was counted too.
        if (reported_[peer] >= phase_ + 1) --done_[phase_ % 2];
        if (reported_[peer] == phase_ + 2) --done_[(phase_ + 1) % 2];
        finished_[peer] = true;
        ++finished_peers_;
        return true;
    }
    reported_[peer] = phase + 1;
    ++done_[phase % 2];
    return true;
}

bool PhaseBarrier::can_advance() const {
    return local_done_ && !finished_[self_] && done_[phase_ % 2] + finished_peers_ + 1 >= finished_.size();
}

void PhaseBarrier::advance() {
    done_[phase_ % 2] = 0;
    ++phase_;
    local_done_ = false;
}

} // namespace evb
