// A micro-benchmark's sender (paper 003 sec. 3.5), hosted as the node's RU: sends messages (one
// fragment each, with the message mix) to the targets its TrafficPattern names, into slots the
// receivers grant, with at most `in_flight` messages outstanding; waits for a grant rather than
// skip a target, as DAQPIPE does. When done, tells every receiver how many it sent there.
#pragma once
#include "units/fragment_writer.hpp"
#include "core/memory_pool.hpp"
#include "scheduling/traffic_pattern.hpp"
#include "units/unit.hpp"

#include <vector>

namespace evb {

class TrafficSender final : public Unit {
public:
    TrafficSender(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    void on_timer(Context& ctx, TimerId id) override;
    void on_end_now(Context& ctx) override;
    bool finished() const override { return ended_; }
    std::vector<MemoryPool*> pools() override { return {&pool_}; }

private:
    struct Target {
        std::uint64_t free_slots = 0; // granted and not in use
        std::uint64_t rkey = 0;
        std::uint64_t base = 0; // offset of this sender's area in the receiver's region
        std::uint64_t sent = 0; // messages sent there: their sequence numbers
    };
    std::uint32_t phase(const Context& ctx) const;
    void pump(Context& ctx);
    void send_one(Context& ctx, std::uint32_t to);
    void end(Context& ctx);

    const UnitSetup& setup_;
    const UnitConfig& config_;
    std::uint32_t index_;
    MemoryPool& pool_;
    TrafficPattern pattern_;
    FragmentWriter writer_;
    std::vector<Target> targets_;
    std::uint64_t sent_ = 0;
    std::uint32_t in_flight_ = 0;
    bool done_sending_ = false, ended_ = false;
    bool ended_now_ = false; // interrupted: nothing more is sent, as past --duration
};

} // namespace evb
