// The RU: holds fragments in its registered pool and writes each into the BU slot that asked for
// it (PULL) or that the EM named (PUSH), as the writes of the message mix. Requests wait when
// every buffer is on loan; a buffer returns when the last write of its fragment is done.
#pragma once
#include "class_delivery.hpp"
#include "fragment_writer.hpp"
#include "memory_pool.hpp"
#include "ring_queue.hpp"
#include "unit.hpp"

#include <optional>
#include <vector>

namespace evb {

class ReadoutUnit final : public Unit {
public:
    ReadoutUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    void on_timer(Context& ctx, TimerId id) override;
    void on_unit_lost(Context& ctx, UnitAddress lost) override;
    // Passive, it serves until the run ends; an events-limited run waits for its writes' completions
    // (the last fragment's reaches its BU first, which may end the run before they are counted).
    bool finished() const override { return fragments_outstanding_ == 0; }
    void on_stop(Context& ctx, bool in_flight_is_missing) override;
    std::vector<MemoryPool*> pools() override { return {&pool_}; }

private:
    struct Job {
        std::uint64_t event;
        std::uint32_t bu;
        std::uint32_t slot;
        std::uint64_t rkey;
        std::uint64_t offset;   // where this RU's fragment goes
    };
    void serve(Context& ctx, const Job& job, std::uint32_t block);
    void pump(Context& ctx);
    bool next_push_job(Job& job);
    // a2a: sends to the phase's BU what finishes inside the send window, then waits for the next.
    void pump_a2a(Context& ctx);

    const UnitSetup& setup_;
    std::uint32_t index_;
    MemoryPool& pool_;
    FragmentWriter writer_;
    std::uint64_t slot_stride_;
    // PULL: requests waiting for a free buffer, in arrival order. Sized for the c p requests an
    // RU sees on average (N c p would be N^2 c p for a simulated system); it doubles if a burst
    // needs more.
    RingQueue<Job> waiting_;
    // PUSH: assignments waiting, per BU, visited in the schedule's order under the parallel window.
    // The cursor waits at a BU with nothing assigned yet unless it gets nothing more: it is lost,
    // or the EM has ended the run (push_ended_). Passing it would let every RU follow the BUs
    // that got work first, all into one.
    std::vector<RingQueue<Job>> push_pending_;
    std::vector<bool> push_lost_;             // per BU
    bool push_ended_ = false;                 // the EM assigns no new events (re-assignments may come)
    std::vector<std::uint32_t> push_order_;   // the schedule's order for round push_order_round_
    std::uint32_t push_cursor_ = 0;
    std::uint64_t push_round_ = 0, push_order_round_ = 0;
    std::uint64_t push_jobs_ = 0;             // pending in push_pending_, over all BUs
    std::uint32_t fragments_outstanding_ = 0;   // fragments with writes in flight
    std::optional<TimeWindows> a2a_windows_;    // a2a: the send and idle windows (none otherwise)
    Picoseconds a2a_busy_until_{};              // a2a: when what was posted will have left at line rate
    Picoseconds a2a_timer_{};                   // a2a: the window start a timer is armed for (0: none)
    // PULL without EM, --on-failure continue: what a lost BU's class had from this RU.
    bool track_classes_;
    ClassDelivery delivered_;
    std::vector<Job> block_job_;                // per pool block: the fragment it carries
    std::vector<std::uint32_t> lost_bus_;
};

} // namespace evb
