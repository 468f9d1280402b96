// Delivery inside one address space, shared by the in-process transport and by every
// multi-process transport's writes to self: a message is copied, a write is a memcpy into the
// target's registered region, and both sides get the completions a fabric would produce.
#pragma once
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <span>
#include <string>

namespace evb {

struct LoopbackEnd {
    std::uint32_t rank;
    RingQueue<Completion>& completions;
};

void deliver_message(const LoopbackEnd& from, const LoopbackEnd& to, const CommandBytes& command);

// Returns an empty string on success, else why the write is refused (bad key or bounds).
std::string deliver_write(const LoopbackEnd& from, const LoopbackEnd& to, std::span<const MemoryRegion> target_regions,
                          const WriteRequest& w);

} // namespace evb
