// PULL without EM's own events driven by hand: which event each free slot gets, when the BU has
// given out all it will build, and how a lost BU's events are shared once every RU has reported.
#include "units/own_events.hpp"
#include "recording_context.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

using evb::test::RecordingContext;

namespace {

// A BU whose slots are busy from the event given until the test frees them.
struct FakeBuilder final : evb::OwnEvents::Builder {
    explicit FakeBuilder(std::size_t slots) : busy(slots, false) {}
    bool slot_free(std::uint32_t slot) const override { return !busy[slot]; }
    void start_event(evb::Context&, std::uint32_t slot, std::uint64_t event, bool reassigned) override {
        busy[slot] = true;
        started.emplace_back(event, reassigned);
    }
    bool ru_lost(std::uint32_t ru) const override { return std::ranges::find(lost_rus, ru) != lost_rus.end(); }

    std::vector<bool> busy;
    std::vector<std::pair<std::uint64_t, bool>> started; // (event, re-assigned)
    std::vector<std::uint32_t> lost_rus;
};

evb::Message report(std::uint32_t ru, std::uint32_t lost_bu, std::uint64_t from_round, std::uint64_t asked_below) {
    evb::Message m{};
    m.type = evb::MessageType::takeover;
    m.from = evb::Role::readout;
    m.from_index = ru;
    m.peer_index = lost_bu;
    m.event = from_round;
    m.count = asked_below;
    return m;
}

// Frees slot 0 and gives it the next event, n times: the events it got.
std::vector<std::pair<std::uint64_t, bool>> next_events(FakeBuilder& bu, evb::OwnEvents& own, RecordingContext& ctx, int n) {
    const std::size_t from = bu.started.size();
    for (int i = 0; i < n; ++i) {
        bu.busy[0] = false;
        own.fill(ctx);
    }
    return {bu.started.begin() + static_cast<std::ptrdiff_t>(from), bu.started.end()};
}

using Events = std::vector<std::pair<std::uint64_t, bool>>;

} // namespace

TEST(OwnEvents, EachFreeSlotGetsTheNextEventOfItsClassUpToTheEventsLimit) {
    FakeBuilder bu(2);
    evb::OwnEvents own(bu, {1, 3, 2, 2, 10, evb::Picoseconds(0)}); // BU 1 of 3, 2 RUs, 2 slots, 10 events
    RecordingContext ctx;
    own.fill(ctx);
    EXPECT_EQ(bu.started, (Events{{1, false}, {4, false}}));
    EXPECT_FALSE(own.all_given());
    EXPECT_EQ(next_events(bu, own, ctx, 2), (Events{{7, false}}));
    EXPECT_TRUE(own.all_given()) << "event 10 is past --events 10";
    EXPECT_EQ(ctx.stats_.events_assigned, 3u);
}

TEST(OwnEvents, PastItsDurationOrEndedNoNewEventStarts) {
    FakeBuilder bu(1);
    evb::OwnEvents own(bu, {0, 2, 2, 1, 0, evb::Picoseconds(1000000)});
    RecordingContext ctx;
    ctx.now_ = evb::Picoseconds(2000000);
    own.fill(ctx);
    EXPECT_TRUE(bu.started.empty());
    EXPECT_TRUE(own.all_given());

    FakeBuilder bu2(1);
    evb::OwnEvents ended(bu2, {0, 2, 2, 1, 0, evb::Picoseconds(0)});
    RecordingContext ctx2;
    ended.end_now(ctx2);
    EXPECT_TRUE(bu2.started.empty());
    EXPECT_TRUE(ended.all_given());
}

TEST(OwnEvents, ALostBuildersEventsAreSharedOnceEveryRuHasReported) {
    FakeBuilder bu(1);
    evb::OwnEvents own(bu, {0, 3, 2, 1, 0, evb::Picoseconds(0)}); // BU 0 of 3, 2 RUs, no limit
    RecordingContext ctx;
    own.fill(ctx);
    own.builder_lost(ctx, 2);
    own.on_report(ctx, report(0, 2, 3, 5)); // RU 0: delivered BU 2's class below round 3, asked below 5
    EXPECT_FALSE(own.all_given()) << "RU 1 has not reported: the takeover is not settled";
    EXPECT_EQ(ctx.stats_.events_built_by_lost, 0u);
    own.on_report(ctx, report(1, 2, 4, 4));
    // Rounds from 3 of class 2, every other one (position 0 of 2 survivors): 11 (round 3, below
    // 5: re-assigned), 17 (round 5, new); 14 is BU 1's.
    EXPECT_EQ(next_events(bu, own, ctx, 6), (Events{{3, false}, {6, false}, {9, false}, {11, true}, {12, false}, {15, false}}));
    EXPECT_EQ(next_events(bu, own, ctx, 1), (Events{{17, false}}));
    EXPECT_EQ(ctx.stats_.events_built_by_lost, 3u) << "rounds 0 to 2 of class 2, counted by the first survivor";
    EXPECT_EQ(ctx.stats_.events_reassigned, 1u);
}

TEST(OwnEvents, ALostRuIsNotWaitedForAndABadReportIsAnError) {
    FakeBuilder bu(1);
    evb::OwnEvents own(bu, {1, 3, 2, 1, 0, evb::Picoseconds(0)});
    RecordingContext ctx;
    own.fill(ctx);
    own.builder_lost(ctx, 0);
    own.on_report(ctx, report(0, 0, 2, 2));
    EXPECT_FALSE(own.all_given());
    EXPECT_EQ(ctx.stats_.events_built_by_lost, 0u);
    bu.lost_rus.push_back(1);
    own.ru_lost(ctx); // RU 1's report is no longer awaited: settled, BU 1 first of the survivors 1 and 2
    EXPECT_EQ(ctx.stats_.events_built_by_lost, 2u) << "rounds 0 and 1 of class 0";
    EXPECT_EQ(next_events(bu, own, ctx, 3), (Events{{4, false}, {6, false}, {7, false}})) << "round 2 of class 0 is event 6";
    own.on_report(ctx, report(0, 1, 0, 0)); // a report on itself
    own.on_report(ctx, report(5, 0, 0, 0)); // from an RU that does not exist
    EXPECT_EQ(ctx.stats_.errors.unexpected, 2u);
}
