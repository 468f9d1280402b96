// Liveness of peers for drivers whose endpoints say nothing of a peer that went away while idle,
// or that stopped (libfabric reliable datagrams, UCX over shared memory): every rank sends each
// peer a heartbeat every period_ms, and a peer not heard of for timeout_ms is lost.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

class Heartbeat {
public:
    static constexpr std::int64_t period_ms = 250, timeout_ms = 10'000;

    static std::int64_t now_ms() {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    // From now on every peer is expected to be heard of.
    void start(std::uint32_t peers) {
        const std::int64_t now = now_ms();
        last_heard_ms_.assign(peers, now);
        next_beat_ms_ = now;
    }
    void heard(std::uint32_t peer) {
        if (peer < last_heard_ms_.size()) last_heard_ms_[peer] = now_ms();
    }
    // When a beat is due: send(peer) for every peer but `self` that is still heard of, and
    // silent(peer, why) for each one past the timeout (the driver marks it lost, once).
    template <typename Send, typename Silent>
    void tick(std::uint32_t self, Send&& send, Silent&& silent) {
        const std::int64_t now = now_ms();
        if (last_heard_ms_.empty() || now < next_beat_ms_) return;
        next_beat_ms_ = now + period_ms;
        for (std::uint32_t peer = 0; peer < last_heard_ms_.size(); ++peer) {
            if (peer == self) continue;
            if (now - last_heard_ms_[peer] > timeout_ms)
                silent(peer, "not heard of for " + std::to_string(timeout_ms / 1000) + " s (gone, or stopped)");
            else
                send(peer);
        }
    }

private:
    std::vector<std::int64_t> last_heard_ms_;
    std::int64_t next_beat_ms_ = 0;
};

} // namespace evb
