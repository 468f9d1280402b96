// The real executor's loop body: polls each node's transport, dispatches completions to its
// units, fires due timers and retries waiting posts. Never blocks; returns the work it did.
#pragma once
#include "exec/node.hpp"
#include "exec/poll_mode.hpp"
#include "exec/progress_counts.hpp"

#include <poll.h>

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace evb {

class Reactor {
public:
    explicit Reactor(PollMode mode = PollMode::spin) : mode_(mode) {}
    void add(Node& node) { nodes_.push_back(&node); }
    std::size_t run_once(Picoseconds now);
    // After a pass that found no work (the policy of --poll): returns at once (spin, or adaptive
    // within its first adaptive_spin of idleness), else sleeps in the transport's wait object up to
    // `max` (single-node reactors only; several nodes share no wait object). A transport with no
    // wait object (mpi, psm2) has nothing to wake it: it offers no descriptor when it only waits for
    // its peers, and the rank naps up to `nap` at a time (the kernel's timer slack adds up to 50 us).
    // While its own writes need our calls, libfabric's and UCX's ask for a yield instead
    // (Transport::prepare_wait): a nap would slow them, but spinning keeps the core from the
    // neighbour they may wait for. Not a yield in place of the nap: beside a busy process it hands
    // the core over for a whole slice.
    void idle(Picoseconds now, Picoseconds max);
    // Whether idle() may ever sleep: not spinning, and one node.
    bool may_idle() const { return mode_ != PollMode::spin && nodes_.size() == 1; }
    static constexpr Picoseconds adaptive_spin{20'000'000}; // 20 us
    static constexpr Picoseconds nap{50'000'000}; // 50 us
    bool all_finished() const;
    std::optional<std::string> failure() const;
    Picoseconds next_timer() const;
    NodeStats totals() const; // sum over the nodes' windows
    ProgressCounts progress() const; // sum over the nodes since the start, for progress lines
    const std::vector<Node*>& nodes() const { return nodes_; }

private:
    PollMode mode_;
    Picoseconds idle_since_ = Picoseconds::max(); // max: the last pass found work
    std::vector<Node*> nodes_;
    std::vector<int> fds_;
    std::vector<pollfd> pollfds_;
    std::array<Completion, 64> completions_{};
};

} // namespace evb
