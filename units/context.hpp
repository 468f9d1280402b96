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

// A one-sided write of `length` bytes at `block_offset` of pool block `block`, into the target's
// region `rkey` at `remote_offset`; the target sees `imm`, the writer's completion `cookie`.
struct PoolWrite {
    const MemoryPool& pool;
    std::uint32_t block = 0;
    std::uint64_t block_offset = 0;
    std::uint32_t length = 0;
    std::uint64_t rkey = 0;
    std::uint64_t remote_offset = 0;
    std::uint32_t imm = 0;
    std::uint64_t cookie = 0;
};

class Context {
public:
    virtual ~Context() = default;
    virtual Picoseconds now() const = 0; // since the run started
    virtual void send(UnitAddress to, Message msg) = 0;
    virtual void write(UnitAddress to, const PoolWrite& w) = 0;
    virtual void arm_timer(Picoseconds at, TimerId id) = 0;
    virtual NodeStats& stats() = 0;
    virtual spdlog::logger& log() = 0;
};

} // namespace evb
