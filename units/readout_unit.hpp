// The RU: holds fragments in its registered pool and writes each into the BU slot that asked for
// it (PULL) or that the EM named (PUSH), as the writes of the message mix. Requests wait when
// every buffer is on loan; a buffer returns when the last write of its fragment is done.
#pragma once
#include "units/class_delivery.hpp"
#include "units/fragment_writer.hpp"
#include "core/memory_pool.hpp"
#include "units/push_pacing.hpp"
#include "core/ring_queue.hpp"
#include "units/unit.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace evb {

class ReadoutUnit final : public Unit, private PushPacing::Readout {
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
    using Job = FragmentJob;
    void serve(Context& ctx, const Job& job, std::uint32_t block);
    // What PUSH's pacing asks of it.
    bool window_open() const override;
    std::optional<std::uint32_t> buffer() override { return pool_.acquire(); }
    void send(Context& ctx, const Job& job, std::uint32_t block) override { serve(ctx, job, block); }
    void wait_for_buffer(const Job& job) override { waiting_.push(job); }

    const UnitSetup& setup_;
    std::uint32_t index_;
    MemoryPool& pool_;
    FragmentWriter writer_;
    std::uint64_t slot_stride_;
    // PULL: requests waiting for a free buffer, in arrival order. Sized for the c p requests an
    // RU sees on average (N c p would be N^2 c p for a simulated system); it doubles if a burst
    // needs more.
    RingQueue<Job> waiting_;
    std::unique_ptr<PushPacing> push_; // PUSH: the assigned fragments and their pacing (none: PULL)
    std::uint32_t fragments_outstanding_ = 0; // fragments with writes in flight
    // PULL without EM, --on-failure continue: what a lost BU's class had from this RU.
    bool track_classes_;
    ClassDelivery delivered_;
    std::vector<Job> block_job_; // per pool block: the fragment it carries
    std::vector<std::uint32_t> lost_bus_;
};

} // namespace evb
