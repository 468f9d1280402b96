// Completions a driver queued (its own, or a lost peer's) handed to poll()'s caller.
#pragma once
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <span>

namespace evb {

// Moves queued completions into out[n..] while there is room; returns the new count.
inline std::size_t hand_out(RingQueue<Completion>& ready, std::span<Completion> out, std::size_t n) {
    while (n < out.size() && !ready.empty()) {
        out[n++] = ready.front();
        ready.pop();
    }
    return n;
}

} // namespace evb
