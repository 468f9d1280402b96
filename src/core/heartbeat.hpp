// Liveness by heartbeat, the one mechanism for every layer that watches peers (--heartbeat T):
// beat every T/4, and a watched peer heard of nothing for T is silent, reported once. The
// control plane watches ranks with it (rank 0 every rank, every rank rank 0) and so do the
// drivers whose endpoints say nothing of a peer that went away while idle, or stopped (libfabric
// reliable datagrams, UCX over shared memory, PSM2). The caller's clock: run time or steady_now().
#pragma once
#include "core/time.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

class Heartbeat {
public:
    // timeout 0: off (no beat is ever due, nobody is ever silent).
    explicit Heartbeat(Picoseconds timeout = {}) : timeout_(timeout) {}

    bool on() const { return timeout_ > Picoseconds(0); }
    Picoseconds period() const { return Picoseconds(timeout_.count() / 4); }
    // Why a silent peer is lost, in the words of every layer's report.
    std::string silence() const { return fmt::format("sent nothing for {:g} s (--heartbeat)", timeout_.seconds()); }

    // From `now` on, each of `peers` is watched and taken as just heard of; the first beat is due.
    void start(std::uint32_t peers, Picoseconds now) {
        last_heard_.assign(peers, now);
        watched_.assign(peers, true);
        next_beat_ = now;
        last_look_ = now;
    }
    // Not expected to be heard of (itself, a peer it does not talk to, one already lost).
    void forget(std::uint32_t peer) {
        if (peer < watched_.size()) watched_[peer] = false;
    }
    void heard(std::uint32_t peer, Picoseconds now) {
        if (peer < last_heard_.size()) last_heard_[peer] = now;
    }
    // True once per period: the caller beats to its peers.
    bool beat_due(Picoseconds now) {
        if (!on() || last_heard_.empty() || now < next_beat_) return false;
        next_beat_ = now + period();
        return true;
    }
    // silent(peer, last_heard) for each watched peer heard of nothing for longer than the
    // timeout; it is forgotten, so reported once. Callers look at least once a period. When this
    // process did not look for half the timeout (it was stopped, or starved of the CPU), what its
    // peers sent meanwhile is still unread: their silence cannot be told, and each is taken as
    // heard of now (a woken rank hears rank 0 declare it lost, rather than declaring rank 0 lost).
    template <typename Silent>
    void find_silent(Picoseconds now, Silent&& silent) {
        if (!on()) return;
        const bool was_away = now - last_look_ > Picoseconds(timeout_.count() / 2);
        last_look_ = now;
        if (was_away) {
            std::fill(last_heard_.begin(), last_heard_.end(), now);
            return;
        }
        for (std::uint32_t peer = 0; peer < watched_.size(); ++peer)
            if (watched_[peer] && now - last_heard_[peer] > timeout_) {
                watched_[peer] = false;
                silent(peer, last_heard_[peer]);
            }
    }

private:
    Picoseconds timeout_;
    std::vector<Picoseconds> last_heard_;
    std::vector<bool> watched_;
    Picoseconds next_beat_{};
    Picoseconds last_look_{};
};

} // namespace evb
