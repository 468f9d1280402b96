// The real executor's loop body: polls each node's transport, dispatches completions to its
// units, fires due timers and retries waiting posts. Never blocks; returns the work it did.
#pragma once
#include "node.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace evb {

class Reactor {
public:
    void add(Node& node) { nodes_.push_back(&node); }
    std::size_t run_once(Picoseconds now);
    // Idle backoff: sleeps in the transport up to `max` (single-node reactors only).
    void wait(Picoseconds max);
    bool all_finished() const;
    std::optional<std::string> failure() const;
    Picoseconds next_timer() const;
    NodeStats totals() const;   // sum over nodes, for progress lines
    const std::vector<Node*>& nodes() const { return nodes_; }

private:
    std::vector<Node*> nodes_;
    std::array<Completion, 64> completions_{};
};

} // namespace evb
