// A peer's lost state, and the one peer_lost completion that tells the executor: every driver
// that learns of a loss itself (tcp, verbs, ofi, ucx, psm2, mpi), one per rank in PeerTransport.
#pragma once
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <atomic>
#include <string>

namespace evb {

struct PeerLoss {
    // Set once, after `reason`: a thread that posts (tcp's caller, beside its I/O threads) reads
    // the reason only once it has seen the peer lost.
    std::atomic<bool> lost{false};
    std::string reason; // "rank 3: ..."; the completion's error points here, so it never moves

    // Marks the peer lost: true the first time, when the caller hands completion() on. Called by
    // one thread per peer.
    bool mark(std::uint32_t peer, const std::string& why) {
        if (lost.load(std::memory_order_relaxed)) return false;
        reason = peer_loss_prefix(peer) + why;
        lost.store(true, std::memory_order_release);
        return true;
    }
    Completion completion(std::uint32_t peer) const {
        Completion c;
        c.kind = Completion::Kind::peer_lost;
        c.peer = peer;
        c.error = reason.c_str();
        return c;
    }
    // Marks the peer lost (once) and queues its peer_lost completion.
    void mark(std::uint32_t peer, const std::string& why, RingQueue<Completion>& ready) {
        if (mark(peer, why)) ready.push(completion(peer));
    }
};

} // namespace evb
