// What the drivers of a fabric between processes keep alike: this rank, the run's size, the text
// of the last error a call returned, the completions queued for the next poll (loopback
// deliveries, a lost peer's, ones taken while arming a wait object), each peer's loss, and the
// heartbeat of those whose endpoints say nothing of a peer that went away while idle, or stopped.
#pragma once
#include "core/heartbeat.hpp"
#include "drivers/transport/loopback_delivery.hpp"
#include "drivers/transport/peer_loss.hpp"
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <string>
#include <vector>

namespace evb {

class PeerTransport : public Transport {
public:
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    std::string last_error() const override { return last_error_; }

protected:
    // A driver that learns its rank and size later (mpi, from its communicator) sets them then.
    PeerTransport(std::uint32_t rank, std::uint32_t size, std::size_t ready_capacity = 0)
        : rank_(rank), size_(size), ready_(ready_capacity), losses_(size) {}
    void learn_world(std::uint32_t rank, std::uint32_t size) {
        rank_ = rank;
        size_ = size;
        losses_ = std::vector<PeerLoss>(size);
    }

    // Marks `peer` lost (once) and queues its peer_lost completion for the next poll.
    void lose(std::uint32_t peer, const std::string& why) { losses_[peer].mark(peer, why, ready_); }
    bool lost(std::uint32_t peer) const { return losses_[peer].lost.load(std::memory_order_acquire); }
    // Whether a post to `peer` may go ahead: error, with the reason in last_error(), for a rank
    // that does not exist or is lost.
    PostStatus check_post(std::uint32_t peer) {
        if (peer >= size_) {
            last_error_ = no_such_rank(peer, size_);
            return PostStatus::error;
        }
        if (lost(peer)) {
            last_error_ = "connection to " + losses_[peer].reason;
            return PostStatus::error;
        }
        return PostStatus::ok;
    }

    // A post to this rank itself, delivered at once into the ready queue; a write into one of
    // `regions` (its own, as the write's key names them), checked as any peer's.
    PostStatus send_to_self(const CommandBytes& command) {
        deliver_message({rank_, ready_}, {rank_, ready_}, command);
        return PostStatus::ok;
    }
    PostStatus write_to_self(std::span<const MemoryRegion> regions, const WriteRequest& w) {
        last_error_ = deliver_write({rank_, ready_}, {rank_, ready_}, regions, w);
        return last_error_.empty() ? PostStatus::ok : PostStatus::error;
    }

    // --heartbeat (0: none): given at construction, started once connected, fed by every message
    // from a peer, kept by keep_alive on every poll.
    void use_heartbeat(Picoseconds timeout) { heartbeat_ = Heartbeat(timeout); }
    void start_heartbeat() {
        heartbeat_.start(size_, steady_now());
        heartbeat_.forget(rank_);
    }
    void heard_from(std::uint32_t peer) {
        if (heartbeat_.on()) heartbeat_.heard(peer, steady_now());
    }
    // Once per beat period: lose(peer, why) for each peer silent past the timeout, then beat(peer)
    // for every other peer (the driver's beat skips the ones it has lost, these among them).
    template <typename Beat, typename Lose>
    void keep_alive(Beat&& beat, Lose&& lose) {
        if (!heartbeat_.on()) return;
        const Picoseconds now = steady_now();
        if (!heartbeat_.beat_due(now)) return;
        heartbeat_.find_silent(now, [&](std::uint32_t peer, Picoseconds) { lose(peer, heartbeat_.silence()); });
        for (std::uint32_t peer = 0; peer < size_; ++peer)
            if (peer != rank_) beat(peer);
    }

    std::uint32_t rank_, size_;
    RingQueue<Completion> ready_;
    std::string last_error_;
    // One per rank, never resized once the size is known: a completion's error points into it.
    std::vector<PeerLoss> losses_;

private:
    Heartbeat heartbeat_;
};

} // namespace evb
