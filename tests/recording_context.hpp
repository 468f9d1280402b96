// A Context for driving one unit by hand: records what it sends and writes, time set by the test.
#pragma once
#include "units/context.hpp"
#include "core/log.hpp"
#include "core/memory_pool.hpp"

#include <vector>

namespace evb::test {

struct RecordedWrite {
    UnitAddress to;
    std::uint32_t block;
    std::uint64_t block_offset;
    std::uint32_t length;
    std::uint64_t rkey, offset;
    std::uint32_t imm;
    std::uint64_t cookie;
};

class RecordingContext final : public Context {
public:
    Picoseconds now() const override { return now_; }
    void send(UnitAddress to, Message msg) override {
        msg.to = to.role;
        sent.push_back({to, msg});
    }
    void write(UnitAddress to, const PoolWrite& w) override {
        writes.push_back({to, w.block, w.block_offset, w.length, w.rkey, w.remote_offset, w.imm, w.cookie});
    }
    void arm_timer(Picoseconds at, TimerId id) override { timers.push_back({at, id}); }
    NodeStats& stats() override { return stats_; }
    spdlog::logger& log() override { return logger("test"); }

    Picoseconds now_{};
    NodeStats stats_;
    std::vector<std::pair<UnitAddress, Message>> sent;
    std::vector<RecordedWrite> writes;
    std::vector<std::pair<Picoseconds, TimerId>> timers;
};

} // namespace evb::test
