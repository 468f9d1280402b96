// A switch's requests by hand: inputs ask an output on a VL and are withdrawn when granted, the
// outputs and VLs keep apart, and the round robin visits the asking inputs from its start and
// wraps, on a switch of up to 64 ports and on a larger one.
#include "netsim/engine/switch_requests.hpp"

#include <gtest/gtest.h>

#include <vector>

using evb::netsim::SwitchRequests;

namespace {

std::vector<std::uint32_t> visit_all(const SwitchRequests::Output& o, std::uint32_t start) {
    std::vector<std::uint32_t> seen;
    EXPECT_FALSE(o.visit_from(start, [&](std::uint32_t in) {
        seen.push_back(in);
        return false;
    }));
    return seen;
}

} // namespace

TEST(SwitchRequests, AnInputAsksOneOutputOnOneVlAndIsWithdrawnWhenGranted) {
    constexpr std::uint32_t vls = 2;
    SwitchRequests r;
    r.reset(3); // device 0 a host, 1 and 2 switches
    r.add_switch(1, 4);
    r.add_switch(2, 36);
    r.allocate(vls);
    SwitchRequests::Output o = r.output(2, 5 * vls + 1); // switch 2, output 5, VL 1
    o.ask(7, 65, 1234);
    o.ask(30, 2, 99);
    EXPECT_EQ(o[7].need, 65u);
    EXPECT_EQ(o[7].packet, 1234u);
    EXPECT_EQ(visit_all(r.output(2, 5 * vls + 0), 0), std::vector<std::uint32_t>{}); // another VL
    EXPECT_EQ(visit_all(r.output(2, 4 * vls + 1), 0), std::vector<std::uint32_t>{}); // another output
    EXPECT_EQ(visit_all(r.output(1, 3 * vls + 1), 0), std::vector<std::uint32_t>{}); // another switch
    EXPECT_TRUE(o.withdraw(7)); // input 30 still asks
    EXPECT_FALSE(o.withdraw(30)); // none left
    EXPECT_EQ(visit_all(o, 0), std::vector<std::uint32_t>{});
}

TEST(SwitchRequests, TheRoundRobinVisitsTheAskingInputsFromItsStartAndWraps) {
    SwitchRequests r;
    r.reset(2);
    r.add_switch(0, 36); // one bitset word
    r.add_switch(1, 130); // three words
    r.allocate(1);
    SwitchRequests::Output small = r.output(0, 2);
    for (std::uint32_t in : {3u, 10u, 35u}) small.ask(in, 1, in);
    EXPECT_EQ(visit_all(small, 10), (std::vector<std::uint32_t>{10, 35, 3}));
    EXPECT_EQ(visit_all(small, 36), (std::vector<std::uint32_t>{3, 10, 35})); // start past the last port
    EXPECT_EQ(small.first_from(11), 35u);
    EXPECT_EQ(small.first_from(36), 3u);
    std::uint32_t granted = SwitchRequests::none;
    EXPECT_TRUE(small.visit_from(4, [&](std::uint32_t in) { // stops at the first it grants
        granted = in;
        return true;
    }));
    EXPECT_EQ(granted, 10u);
    EXPECT_EQ(SwitchRequests::start_after(SwitchRequests::none), 0u); // none granted yet
    EXPECT_EQ(SwitchRequests::start_after(10), 11u);
    EXPECT_EQ(small.first_from(SwitchRequests::start_after(35)), 3u); // past the last asking input: wraps

    SwitchRequests::Output large = r.output(1, 129);
    for (std::uint32_t in : {0u, 63u, 64u, 100u, 129u}) large.ask(in, 1, in);
    EXPECT_EQ(visit_all(large, 64), (std::vector<std::uint32_t>{64, 100, 129, 0, 63}));
    EXPECT_EQ(visit_all(large, 101), (std::vector<std::uint32_t>{129, 0, 63, 64, 100}));
    EXPECT_EQ(visit_all(large, 192), (std::vector<std::uint32_t>{0, 63, 64, 100, 129})); // start at the bitset's end
    EXPECT_EQ(large.first_from(0), SwitchRequests::none); // more than 64 ports: no guess
    EXPECT_TRUE(large.withdraw(129));
    EXPECT_EQ(visit_all(large, 101), (std::vector<std::uint32_t>{0, 63, 64, 100}));
}
