// The figures of a progress line: what a rank publishes (network bytes only), their sum over
// ranks, and the record a rank sends rank 0 (checked on the wire against the progress message's
// schema, src/control/control_message.cpp; read here, a field missing or not a number still throws).
#include "exec/progress_counts.hpp"

#include <gtest/gtest.h>

using evb::ProgressCounts;

TEST(ProgressCounts, AreTheNetworksBytesNotTheNodesOwn) {
    evb::NodeStats s;
    s.bytes_in = 1000;
    s.bytes_in_local = 300;
    s.bytes_out = 800;
    s.bytes_out_local = 100;
    s.events_built = 7;
    s.in_flight = 2;
    const ProgressCounts p = ProgressCounts::of(s);
    EXPECT_EQ(p.bytes_in, 700u);
    EXPECT_EQ(p.bytes_out, 700u);
    EXPECT_EQ(p.events, 7u);
    EXPECT_EQ(p.in_flight, 2u);
}

TEST(ProgressCounts, SumOverRanksAndCrossTheControlPlaneUnchanged) {
    ProgressCounts sum;
    sum += ProgressCounts{1, 2, 3, 4};
    sum += ProgressCounts::from_json(ProgressCounts{10, 20, 30, 40}.to_json());
    EXPECT_EQ(sum.bytes_in, 11u);
    EXPECT_EQ(sum.bytes_out, 22u);
    EXPECT_EQ(sum.events, 33u);
    EXPECT_EQ(sum.in_flight, 44u);
}

// The warm-up's end sets a node's window back to zero; its progress counts go on from where they
// were (before: the window's counts, so a line after the warm-up's end read 2^64 less).
TEST(ProgressCounts, GoOnAcrossTheWarmUpsEnd) {
    evb::NodeStats s;
    s.bytes_in = 1000;
    s.bytes_in_local = 100;
    s.bytes_out = 800;
    s.events_built = 5;
    s.begin_window(evb::Picoseconds(1'000'000));
    EXPECT_EQ(s.events_built, 0u);
    s.bytes_in += 50;
    s.bytes_out += 60;
    s.events_built += 1;
    const ProgressCounts p = ProgressCounts::of(s);
    EXPECT_EQ(p.bytes_in, 950u);
    EXPECT_EQ(p.bytes_out, 860u);
    EXPECT_EQ(p.events, 6u);
    evb::NodeStats sum;
    sum.merge(s);
    sum.merge(s);
    EXPECT_EQ(ProgressCounts::of(sum).events, 12u);
}

TEST(ProgressCounts, ARecordWithAFieldMissingOrNotANumberThrows) {
    nlohmann::json j = ProgressCounts{1, 2, 3, 4}.to_json();
    j.erase("events");
    EXPECT_THROW(ProgressCounts::from_json(j), nlohmann::json::exception);
    j = ProgressCounts{1, 2, 3, 4}.to_json();
    j["bytes_in"] = "many";
    EXPECT_THROW(ProgressCounts::from_json(j), nlohmann::json::exception);
}
