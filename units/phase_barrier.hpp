// The in-band barrier of barrel-sync (DAQPIPE's synchronised barrel shift, thesis 3.2.2): a BU
// that has every transfer of phase n in tells every other BU; it enters phase n + 1 once all
// have told it the same. A BU with nothing more to build says so once and is counted done in
// every later phase. Peers are at most one phase apart, so counts for two phases suffice.
#pragma once
#include "units/context.hpp"

#include <array>
#include <vector>

namespace evb {

class PhaseBarrier {
public:
    PhaseBarrier(std::uint32_t self, std::uint32_t units) : self_(self), finished_(units, false), reported_(units, 0) {}
    std::uint64_t phase() const { return phase_; }
    bool finished() const { return finished_[self_]; }
    bool reported() const { return local_done_; } // our done of the current phase went out
    bool anyone_waits() const { return finished_peers_ + 1 < finished_.size(); }
    // Our transfers of the current phase are all in: tell the other BUs (and whether we are finished).
    void local_done(Context& ctx, bool finished);
    // A phase_done message from BU `peer`. False for one that cannot be (a phase not current or next).
    bool peer_done(std::uint32_t peer, std::uint64_t phase, bool finished);
    // Every BU is done with the current phase (or finished), we too: advance to the next.
    bool can_advance() const;
    void advance();

private:
    std::uint32_t self_;
    std::uint64_t phase_ = 0;
    bool local_done_ = false;
    std::array<std::uint32_t, 2> done_{}; // peers done with phase_ (index phase_ % 2) and phase_ + 1
    std::vector<bool> finished_;
    std::vector<std::uint64_t> reported_; // per peer: 1 + the last phase counted in done_ (0: none)
    std::uint32_t finished_peers_ = 0;
};

} // namespace evb
