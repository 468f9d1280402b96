// All a unit may touch: time, posting, timers, its node's statistics, its logger. Implemented by
// the real executor (src/node.cpp) and by the simulated one; units never see a transport.
#pragma once
#include "units/message.hpp"
#include "units/node_stats.hpp"
#include "core/time.hpp"

#include <spdlog/logger.h>

#include <cstdint>

namespace evb {

class MemoryPool;
using TimerId = std::uint64_t;

class Context {
public:
    virtual ~Context() = default;
    virtual Picoseconds now() const = 0; // since the run started
    virtual void send(UnitAddress to, Message msg) = 0;
    // One-sided write of `length` bytes from `block_offset` into pool block `block` to the
    // target's region.
    virtual void write(UnitAddress to, const MemoryPool& pool, std::uint32_t block, std::uint64_t block_offset, std::uint32_t length,
                       std::uint64_t rkey, std::uint64_t remote_offset, std::uint32_t imm, std::uint64_t cookie) = 0;
    virtual void arm_timer(Picoseconds at, TimerId id) = 0;
    virtual NodeStats& stats() = 0;
    virtual spdlog::logger& log() = 0;
};

} // namespace evb
