// The simulator's per-host counters by hand: packets counted once their arrival time has passed,
// in batches, and what an adapter sent leaving out the packet it is still sending.
#include "netsim/engine/host_counters.hpp"

#include <gtest/gtest.h>

using evb::netsim::HostCounters;

TEST(HostCounters, APacketCountsOnceItsArrivalTimeHasPassed) {
    HostCounters c;
    c.reset(2);
    c.arriving(1, 10'000, 4'000, 700, 0);
    c.arriving(1, 20'000, 5'000, 900, 0);
    auto none_in_flight = [](std::uint32_t) { return 0u; };
    EXPECT_EQ(c.stats(9'999, none_in_flight)[1].rx_payload, 0u);
    EXPECT_EQ(c.stats(10'000, none_in_flight)[1].rx_payload, 700u);
    EXPECT_EQ(c.packet_latency(10'000).count(), 1u);
    EXPECT_EQ(c.stats(25'000, none_in_flight)[1].rx_payload, 1600u);
    EXPECT_EQ(c.packet_latency(25'000).count(), 2u);
    EXPECT_DOUBLE_EQ(c.packet_latency(25'000).max_us(), 0.005);
    EXPECT_EQ(c.stats(25'000, none_in_flight)[0].rx_payload, 0u);
    EXPECT_EQ(c.arriving_entries(), 0u);
}

TEST(HostCounters, AFullBatchCountsThePastArrivalsBeforeTakingAnother) {
    HostCounters c;
    c.reset(1);
    for (std::int64_t k = 1; k <= static_cast<std::int64_t>(HostCounters::batch); ++k) c.arriving(0, k * 10, 1, 1, 0);
    EXPECT_EQ(c.arriving_entries(), HostCounters::batch);
    c.arriving(0, 1'000, 1, 1, 41); // those that arrived by 40 ps are counted now
    EXPECT_EQ(c.arriving_entries(), HostCounters::batch - 4 + 1);
    EXPECT_EQ(c.stats(0, [](std::uint32_t) { return 0u; })[0].rx_payload, 4u);
}

TEST(HostCounters, SentIsWhatStartedButThePacketStillOnTheWire) {
    HostCounters c;
    c.reset(2);
    c.started(0, 4096);
    c.started(0, 1024);
    c.arrived(1, 4096, 2'000);
    c.message_arrived(1, 3'000);
    const auto& s = c.stats(0, [](std::uint32_t h) { return h == 0 ? 1024u : 0u; });
    EXPECT_EQ(s[0].tx_payload, 4096u);
    EXPECT_EQ(s[1].tx_payload, 0u);
    EXPECT_EQ(s[1].rx_payload, 4096u);
    EXPECT_EQ(s[1].rx_messages, 1u);
    EXPECT_EQ(c.message_latency().count(), 1u);
    EXPECT_EQ(c.packet_latency(0).count(), 1u);
}
