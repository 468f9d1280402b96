// A peer's lost state, and the one peer_lost completion that tells the executor (drivers that
// learn of a loss from their own events: verbs, ofi).
#pragma once
#include "ring_queue.hpp"
#include "transport.hpp"

#include <string>

namespace evb {

struct PeerLoss {
    bool lost = false;
    std::string reason;   // "rank 3: ..."; the completion's error points here, so it never moves

    // Marks the peer lost (once) and queues its peer_lost completion.
    void mark(std::uint32_t peer, const std::string& why, RingQueue<Completion>& ready) {
        if (lost) return;
        lost = true;
        reason = "rank " + std::to_string(peer) + ": " + why;
        Completion c;
        c.kind = Completion::Kind::peer_lost;
        c.peer = peer;
        c.error = reason.c_str();
        ready.push(c);
    }
};

} // namespace evb

namespace evb {

// Whether a post to `peer` may go ahead: error, with the reason in `why`, for a rank that does
// not exist or is lost. `peers`: the driver's per-peer states, each with a PeerLoss `loss`.
template <typename Peers>
PostStatus check_post(std::uint32_t peer, const Peers& peers, std::string& why) {
    const auto size = static_cast<std::uint32_t>(peers.size());
    if (peer >= size) {
        why = no_such_rank(peer, size);
        return PostStatus::error;
    }
    if (peers[peer].loss.lost) {
        why = "connection to " + peers[peer].loss.reason;
        return PostStatus::error;
    }
    return PostStatus::ok;
}

} // namespace evb
