// The simulator's link credits by hand: a ramp of credits coming back block by block, what an
// output holds at each instant, when it will hold enough, and a grant taking blocks of a ramp
// still in progress.
#include "netsim/engine/link_credits.hpp"

#include <gtest/gtest.h>

using evb::netsim::LinkCredits;

namespace {

// One output of an 8-block buffer that sent 4 blocks: they come back one every 10 ps from 100 ps,
// the last at 140 ps.
LinkCredits half_used() {
    LinkCredits c;
    c.reset(1, 8);
    EXPECT_EQ(c.take(0, 4, 0), 4);
    c.give_back(0, {100, 40, 10, 4}, 0);
    return c;
}

} // namespace

TEST(LinkCredits, ARampFoldsIntoTheCounterOnceItsLastBlockIsBack) {
    LinkCredits c = half_used();
    EXPECT_EQ(c.folded(0, 105), 4);
    EXPECT_EQ(c.partial(0, 105), 0);
    EXPECT_EQ(c.partial(0, 110), 1);
    EXPECT_EQ(c.partial(0, 139), 3); // never the last block: that one folds the ramp
    EXPECT_EQ(c.folded(0, 140), 8);
    EXPECT_EQ(c.partial(0, 140), 0);
    EXPECT_EQ(c.held(0), 8);
    EXPECT_EQ(c.ramp_entries(), 0u);
}

TEST(LinkCredits, TheTimeANeedIsMetIsWhenItsLastMissingBlockIsBack) {
    const LinkCredits c = half_used();
    EXPECT_EQ(c.time_reached(0, 6, 0), 120); // 2 missing: the second block, at 100 + 2 x 10
    EXPECT_EQ(c.time_reached(0, 8, 0), 140);
    EXPECT_EQ(c.time_reached(0, 6, 130), 131); // met already: not before the next instant
    EXPECT_EQ(c.time_reached(0, 9, 0), -1); // more than is on its way
}

TEST(LinkCredits, AGrantTakesTheBlocksOfARampAlreadyBack) {
    LinkCredits c = half_used();
    LinkCredits::Cover cover(c, 0, 125);
    EXPECT_TRUE(cover(4));
    EXPECT_TRUE(cover(6)); // 4 in the counter, 2 of the ramp back by 125 ps
    EXPECT_FALSE(cover(7));
    EXPECT_EQ(c.take(0, 6, 125), 0);
    EXPECT_EQ(c.held(0), 2); // the ramp's last 2 blocks, still on their way
    EXPECT_EQ(c.time_reached(0, 1, 125), 130);
    EXPECT_EQ(c.folded(0, 140), 2);
}

TEST(LinkCredits, AFullRingFoldsTheRampsCompleteByNowBeforeTakingAnother) {
    LinkCredits c;
    c.reset(1, 16);
    EXPECT_EQ(c.take(0, 10, 0), 6);
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(LinkCredits::ramps_inside); ++k) c.give_back(0, {10 * k, 0, 1, 2}, 0);
    EXPECT_EQ(c.ramp_entries(), LinkCredits::ramps_inside);
    c.give_back(0, {100, 0, 1, 2}, 25); // the ramps at 0, 10 and 20 ps are back by 25 ps
    EXPECT_EQ(c.ramp_entries(), 2u);
    EXPECT_EQ(c[0].credits, 12);
    EXPECT_EQ(c.held(0), 16);
}
