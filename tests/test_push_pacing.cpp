// PUSH's pacings of an RU driven by hand: the schedule's cursor, which waits at a BU with nothing
// assigned yet, and a2a's time windows, which send to the phase's BU only what fits in its window.
#include "units/push_pacing.hpp"
#include "recording_context.hpp"

#include <gtest/gtest.h>

#include <vector>

using evb::test::RecordingContext;

namespace {

struct FakeReadout final : evb::PushPacing::Readout {
    bool window_open() const override { return in_flight < parallel; }
    std::optional<std::uint32_t> buffer() override {
        if (buffers == 0) return std::nullopt;
        --buffers;
        return 0;
    }
    void send(evb::Context&, const evb::FragmentJob& job, std::uint32_t) override {
        ++in_flight;
        sent.push_back(job.event);
    }
    void wait_for_buffer(const evb::FragmentJob& job) override { waiting.push_back(job.event); }

    std::uint32_t parallel = 8, in_flight = 0, buffers = 100;
    std::vector<std::uint64_t> sent, waiting;
};

evb::FragmentJob job(std::uint64_t event, std::uint32_t bu) { return {event, bu, 0, 0, 0}; }

} // namespace

TEST(ScheduleCursor, WaitsAtABuWithNothingAssignedAndGoesOnInTheBarrelsOrder) {
    FakeReadout ru;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::ScheduleCursor cursor(ru, *schedule, 1, 3, 4); // RU 1 of 3 BUs: visits 1, 2, 0, 1, ...
    RecordingContext ctx;
    cursor.assign(ctx, job(10, 2));
    cursor.assign(ctx, job(20, 0));
    EXPECT_TRUE(ru.sent.empty()) << "the cursor waits at BU 1";
    cursor.assign(ctx, job(30, 1));
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{30, 10, 20}));
    EXPECT_EQ(cursor.pending(), 0u);
}

TEST(ScheduleCursor, PassesABuThatGetsNothingMore) {
    FakeReadout ru;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::ScheduleCursor cursor(ru, *schedule, 0, 3, 4);
    RecordingContext ctx;
    cursor.assign(ctx, job(1, 1));
    EXPECT_TRUE(ru.sent.empty());
    cursor.bu_lost(ctx, 0);
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{1})) << "lost BU 0 is passed";
    cursor.assign(ctx, job(2, 1));
    EXPECT_EQ(ru.sent.size(), 1u) << "at BU 2 now, which may still get work";
    cursor.end(ctx);
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{1, 2})) << "the run ended: BU 2 gets nothing more";
}

TEST(ScheduleCursor, KeepsAtMostParallelInFlightAndHandsABufferlessFragmentToWait) {
    FakeReadout ru;
    ru.parallel = 2;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::ScheduleCursor cursor(ru, *schedule, 0, 1, 8);
    RecordingContext ctx;
    for (std::uint64_t e = 0; e < 4; ++e) cursor.assign(ctx, job(e, 0));
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{0, 1}));
    ru.in_flight = 0;
    ru.buffers = 1;
    cursor.pump(ctx);
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{0, 1, 2}));
    EXPECT_EQ(ru.waiting, (std::vector<std::uint64_t>{3}));
    EXPECT_EQ(cursor.pending(), 0u);
}

TEST(TimeWindowPacing, SendsToThePhasesBuWhatFitsInItsWindowThenArmsTheNext) {
    FakeReadout ru;
    // 1 us send windows, 1 us idle, 300 ns per fragment: 3 fit in a window.
    const evb::TimeWindows windows(evb::Picoseconds(1000000), evb::Picoseconds(1000000), evb::Picoseconds(300000));
    evb::TimeWindowPacing pacing(ru, windows, 0, 2, 8); // RU 0 of 2: phase 0 to BU 0, phase 1 to BU 1
    RecordingContext ctx;
    for (std::uint64_t e = 0; e < 4; ++e) pacing.assign(ctx, job(e, 0));
    pacing.assign(ctx, job(100, 1));
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{0, 1, 2})) << "three fit in phase 0's window";
    ASSERT_FALSE(ctx.timers.empty());
    EXPECT_EQ(ctx.timers.back().first, evb::Picoseconds(2000000)) << "the next phase's window";
    ctx.now_ = evb::Picoseconds(2000000);
    pacing.on_timer(ctx);
    EXPECT_EQ(ru.sent, (std::vector<std::uint64_t>{0, 1, 2, 100})) << "phase 1: BU 1's fragment";
    ctx.now_ = evb::Picoseconds(4000000);
    pacing.on_timer(ctx);
    EXPECT_EQ(ru.sent.back(), 3u) << "phase 2: BU 0 again";
    const std::size_t timers = ctx.timers.size();
    pacing.pump(ctx);
    EXPECT_EQ(ctx.timers.size(), timers) << "nothing pending: no timer, so the run can end";
}
