// A host adapter's flows by hand: messages to one destination queue behind each other, flows stay
// in destination order, and the round robin goes on after the flow granted last however flows
// come and go before or after it.
#include "netsim/engine/adapter_flows.hpp"

#include <gtest/gtest.h>

using evb::netsim::AdapterFlows;

TEST(AdapterFlows, AMessageToADestinationWithAFlowQueuesBehindItsTail) {
    AdapterFlows a;
    EXPECT_EQ(a.queue(5, 10, 9000, 65), AdapterFlows::none); // a new flow
    EXPECT_EQ(a.queue(2, 11, 100, 2), AdapterFlows::none);
    EXPECT_EQ(a.queue(5, 12, 50, 2), 10u); // behind message 10: the caller links 10 to 12
    EXPECT_EQ(a.queue(5, 13, 50, 2), 12u);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].dst, 2u); // in destination order
    EXPECT_EQ(a[1].dst, 5u);
    EXPECT_EQ(a[1].head, 10u);
    EXPECT_EQ(a[1].tail, 13u);
    EXPECT_EQ(a[1].left, 9000u); // the head message's bytes, not the queue's
    EXPECT_EQ(a.count_below(65), 1u);
}

TEST(AdapterFlows, TheRoundRobinGoesOnAfterTheFlowGrantedLastAsFlowsComeAndGo) {
    AdapterFlows a;
    for (std::uint32_t d : {1u, 3u, 5u}) a.queue(d, d, 8192, 65);
    EXPECT_EQ(a.cut(1, 4096), 4096u); // dst 3 granted: the round robin starts at dst 5
    EXPECT_EQ(a.next(), 2u);
    EXPECT_EQ(a.first_to_visit().dst, 5u);
    a.queue(2, 20, 100, 2); // a flow before its place: the place moves with dst 5
    EXPECT_EQ(a.first_to_visit().dst, 5u);
    a.queue(4, 21, 100, 2); // after dst 3, the one granted last: visited next
    EXPECT_EQ(a.first_to_visit().dst, 4u);
    EXPECT_EQ(a.cut(4, 4096), 4096u); // dst 5
    EXPECT_EQ(a.next(), 5u);
    EXPECT_EQ(a.first_to_visit().dst, 1u); // past the end: from the first
    EXPECT_EQ(a.cut(0, 4096), 4096u);
    EXPECT_EQ(a.cut(0, 4096), 0u); // dst 1's message is all cut, and no other waits
    a.remove(0);
    EXPECT_EQ(a.size(), 4u);
    EXPECT_EQ(a.first_to_visit().dst, 2u); // the flow after it moved into its place
    a.advance(0, 30, 64, 1);
    EXPECT_EQ(a[0].head, 30u);
    EXPECT_EQ(a[0].left, 64u);
    EXPECT_EQ(a[0].need, 1u);
    a.set_need(1, 7);
    EXPECT_EQ(a[1].need, 7u);
}
