// PULL's requester driven by hand: which RU each slot asks at each step, how many requests are out
// at once, what a lost RU changes, and the in-flight count it keeps.
#include "scheduling/barrel_shift.hpp"
#include "units/pull_requester.hpp"
#include "recording_context.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

using evb::test::RecordingContext;

namespace {

struct FakeBuilder final : evb::PullRequester::Builder {
    bool ru_lost(std::uint32_t ru) const override { return std::ranges::find(lost, ru) != lost.end(); }
    void send_request(evb::Context&, std::uint32_t slot, std::uint32_t ru) override { asked.emplace_back(slot, ru); }

    std::vector<std::uint32_t> lost;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> asked; // (slot, RU)
};

using Asked = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

} // namespace

TEST(PullRequester, ASlotWalksTheBarrelFromItsOwnRuWithAtMostParallelRequestsOut) {
    FakeBuilder bu;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::PullRequester pull(bu, *schedule, {1, 4, 2, 2, evb::BarrelStart::own}); // BU 1, 4 RUs, 2 slots, parallel 2
    RecordingContext ctx;
    pull.begin(0, 7);
    pull.walk(ctx, 0);
    EXPECT_EQ(bu.asked, (Asked{{0, 1}, {0, 2}}));
    EXPECT_EQ(pull.outstanding(0), 2u);
    EXPECT_EQ(ctx.stats_.in_flight, 2u);
    pull.request_more(ctx, 0);
    EXPECT_EQ(bu.asked.size(), 2u) << "two out: none more";
    pull.answered(ctx, 0);
    pull.request_more(ctx, 0);
    pull.answered(ctx, 0);
    pull.request_more(ctx, 0);
    EXPECT_EQ(bu.asked, (Asked{{0, 1}, {0, 2}, {0, 3}, {0, 0}}));
    EXPECT_FALSE(pull.has_step_left(0));
    pull.answered(ctx, 0);
    pull.answered(ctx, 0);
    EXPECT_EQ(ctx.stats_.in_flight, 0u);
    EXPECT_EQ(pull.outstanding(0), 0u);
}

TEST(PullRequester, StaggeredStartsBeginEachSlotsWalkElsewhere) {
    FakeBuilder bu;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::PullRequester pull(bu, *schedule, {0, 4, 2, 1, evb::BarrelStart::staggered});
    RecordingContext ctx;
    for (std::uint32_t slot = 0; slot < 2; ++slot) {
        pull.begin(slot, slot);
        pull.walk(ctx, slot);
    }
    const std::uint32_t first = evb::staggered_start(1, 2, 4);
    ASSERT_NE(first, 0u);
    EXPECT_EQ(bu.asked, (Asked{{0, 0}, {1, first}}));
    for (std::uint32_t step = 0; step < 4; ++step) EXPECT_EQ(pull.ru_at(1, step), (first + step) % 4);
}

TEST(PullRequester, ARandomWalkVisitsEveryRuOnceInTheScheduledOrder) {
    FakeBuilder bu;
    auto schedule = evb::make_schedule(evb::Scheduling::random, 42);
    evb::PullRequester pull(bu, *schedule, {2, 8, 1, 8, evb::BarrelStart::own});
    RecordingContext ctx;
    pull.begin(0, 5);
    pull.walk(ctx, 0);
    std::vector<std::uint32_t> expected(8);
    schedule->order(2, 5, expected);
    ASSERT_EQ(bu.asked.size(), 8u);
    for (std::uint32_t step = 0; step < 8; ++step) EXPECT_EQ(bu.asked[step].second, expected[step]) << "step " << step;
    std::vector<std::uint32_t> seen = expected;
    std::ranges::sort(seen);
    for (std::uint32_t ru = 0; ru < 8; ++ru) EXPECT_EQ(seen[ru], ru);
}

TEST(PullRequester, ALostRuIsSkippedAndItsRequestNoLongerCountsAsOut) {
    FakeBuilder bu;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::PullRequester pull(bu, *schedule, {0, 4, 1, 2, evb::BarrelStart::own});
    RecordingContext ctx;
    bu.lost = {1};
    pull.begin(0, 0);
    pull.walk(ctx, 0);
    EXPECT_EQ(bu.asked, (Asked{{0, 0}, {0, 2}})) << "RU 1 is lost: skipped";
    pull.forget(ctx, 0, 3);
    EXPECT_EQ(pull.outstanding(0), 2u) << "RU 3 was not asked yet";
    bu.lost.push_back(2);
    pull.forget(ctx, 0, 2);
    EXPECT_EQ(pull.outstanding(0), 1u);
    EXPECT_EQ(ctx.stats_.in_flight, 1u);
    pull.request_more(ctx, 0);
    EXPECT_EQ(bu.asked.back(), std::make_pair(0u, 3u));
    EXPECT_FALSE(pull.has_step_left(0));
}

TEST(PullRequester, ANewEventStartsTheSlotsWalkAfresh) {
    FakeBuilder bu;
    auto schedule = evb::make_schedule(evb::Scheduling::barrel_shift, 1);
    evb::PullRequester pull(bu, *schedule, {0, 2, 1, 1, evb::BarrelStart::own});
    RecordingContext ctx;
    pull.begin(0, 0);
    pull.request(ctx, 0, 1); // barrel-sync names the RU
    EXPECT_TRUE(pull.has_step_left(0));
    pull.answered(ctx, 0);
    pull.request(ctx, 0, 0);
    pull.answered(ctx, 0);
    EXPECT_FALSE(pull.has_step_left(0));
    pull.begin(0, 1);
    EXPECT_TRUE(pull.has_step_left(0));
    EXPECT_EQ(pull.outstanding(0), 0u);
    EXPECT_EQ(bu.asked, (Asked{{0, 1}, {0, 0}}));
}
