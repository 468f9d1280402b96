// The simulator's per-port counters by hand: the time an output waits for credits (PortXmitWait),
// counted once per wait however often it is told, and up to the end of a run for a wait still open.
#include "netsim/engine/port_counters.hpp"

#include <gtest/gtest.h>

using evb::netsim::PortCounters;

TEST(PortCounters, AWaitCountsFromItsStartToItsEndOnce) {
    PortCounters c;
    c.reset(70);
    c.start_waiting(65, 100);
    c.start_waiting(65, 150); // waiting already: still from 100
    EXPECT_TRUE(c.is_waiting(65));
    EXPECT_FALSE(c.is_waiting(1)); // the same bit in the first word
    c.stop_waiting(65, 300);
    c.stop_waiting(65, 350); // not waiting: nothing more
    EXPECT_FALSE(c.is_waiting(65));
    EXPECT_EQ(c.xmit_wait_ps(65), 200);
    EXPECT_EQ(c.xmit_wait_ps(1), 0);
}

TEST(PortCounters, AWaitOpenAtTheEndOfARunCountsUpToItAndGoesOn) {
    PortCounters c;
    c.reset(2);
    c.start_waiting(0, 400);
    c.close_waits(500);
    EXPECT_EQ(c.xmit_wait_ps(0), 100);
    EXPECT_TRUE(c.is_waiting(0));
    c.stop_waiting(0, 600);
    EXPECT_EQ(c.xmit_wait_ps(0), 200);
    c.sent(1).tx_packets++;
    EXPECT_EQ(c.sent(1).tx_packets, 1u);
    EXPECT_EQ(c.sent(0).tx_packets, 0u);
}
