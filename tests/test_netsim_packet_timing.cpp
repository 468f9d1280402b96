// The simulator's packet geometry and times by hand, at EDR's defaults (MTU 4096 B, 26 B of header
// and CRC, 64 B flits): a full packet is 4122 B in 65 flits, the last of them 26 B.
#include "netsim/engine/packet_timing.hpp"

#include <gtest/gtest.h>

using evb::netsim::IbParams;
using evb::netsim::PacketTiming;

namespace {
const IbParams edr; // PacketTiming reads the geometry from IbParams it does not own
} // namespace

TEST(PacketTiming, ARateIsAddedOnceWithTheTimesOfAFlitAndOfAFullPacket) {
    PacketTiming t(edr, 0);
    EXPECT_EQ(t.rate_index(100), 1);
    EXPECT_EQ(t.rate_index(200), 2);
    EXPECT_EQ(t.rate_index(100), 1);
    ASSERT_EQ(t.rates().size(), 3u); // and rate 0, no link's
    const auto& l = t.times(1);
    EXPECT_EQ(l.flit_ps, 5120); // 64 B at 100 Gb/s
    EXPECT_EQ(l.mtu_wire_ps, 329760); // 4122 B
    EXPECT_EQ(l.mtu_last_flit_ps, 2080); // 26 B
    EXPECT_EQ(l.mtu_body_ps, 63 * 5120); // all flits but the last two
    EXPECT_EQ(t.times(2).flit_ps, 2560);
    EXPECT_EQ(t.packet_times(l, t.mtu_wire(), t.mtu_blocks()).wire_ps, 329760);
    EXPECT_EQ(t.packet_times(l, t.mtu_wire(), t.mtu_blocks()).last_flit_ps, 2080);
    EXPECT_EQ(t.packet_times(l, 126, 2).wire_ps, 10080); // a packet of 100 B payload: two flits, the last 62 B
    EXPECT_EQ(t.packet_times(l, 126, 2).last_flit_ps, 4960);
}

TEST(PacketTiming, ARateTheModelCannotStepIsRefusedNamingIt) {
    PacketTiming t(edr, 0);
    try {
        t.rate_index(2e6);
        FAIL() << "a flit in no time was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("takes under half a picosecond"), std::string::npos) << e.what();
    }
    try {
        t.rate_index(0.01);
        FAIL() << "a packet over 1 ms was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("a packet of 4122 B at"), std::string::npos) << e.what();
    }
    EXPECT_EQ(t.rates().size(), 1u);
}

TEST(PacketTiming, AnAdapterCutsMtuPacketsAndTheLastHoldsTheRest) {
    PacketTiming t(edr, 0);
    EXPECT_EQ(t.mtu_wire(), 4122u);
    EXPECT_EQ(t.mtu_blocks(), 65u);
    EXPECT_EQ(t.next_payload(10000), 4096u);
    EXPECT_EQ(t.next_packet_blocks(10000), 65u);
    EXPECT_EQ(t.next_payload(100), 100u);
    EXPECT_EQ(t.next_packet_blocks(100), 2u); // 126 B
    EXPECT_EQ(t.next_packet_blocks(38), 1u); // 64 B: one whole flit
    EXPECT_EQ(t.next_packet_blocks(39), 2u);

    IbParams small; // another geometry: 256 B of payload, 40 B of header, 32 B flits
    small.mtu = 256;
    small.header_bytes = 40;
    small.flit_bytes = 32;
    const PacketTiming s(small, 0);
    EXPECT_EQ(s.mtu_wire(), 302u);
    EXPECT_EQ(s.mtu_blocks(), 10u);
    EXPECT_EQ(s.next_payload(1000), 256u);
    EXPECT_EQ(s.next_packet_blocks(1000), 10u);
    EXPECT_EQ(s.next_packet_blocks(18), 2u); // 64 B
    EXPECT_EQ(s.next_packet_blocks(19), 3u);
}

TEST(PacketTiming, AggregatedChunksCoverThePacketAndPacketModeSendsItWhole) {
    PacketTiming aggregated(edr, 16);
    const auto& l = aggregated.times(aggregated.rate_index(100));
    EXPECT_EQ(aggregated.chunks(65), 5u);
    EXPECT_EQ(aggregated.chunk_blocks(65, 0), 16u);
    EXPECT_EQ(aggregated.chunk_blocks(65, 4), 1u);
    EXPECT_EQ(aggregated.chunk_bytes(4122, 65, 0), 1024u);
    EXPECT_EQ(aggregated.chunk_bytes(4122, 65, 4), 26u);
    std::uint64_t bytes = 0;
    for (std::uint32_t c = 0; c < 5; ++c) bytes += aggregated.chunk_bytes(4122, 65, c);
    EXPECT_EQ(bytes, 4122u);
    EXPECT_EQ(aggregated.chunk_start_ps(l, 65, 1), 81920);
    EXPECT_EQ(aggregated.chunk_end_ps(l, 4122, 65, 1), 163840);
    EXPECT_EQ(aggregated.chunk_end_ps(l, 4122, 65, 4), 329760);

    PacketTiming packet(edr, 0);
    EXPECT_EQ(packet.chunks(65), 1u);
    EXPECT_EQ(packet.chunk_blocks(65, 0), 65u);
    EXPECT_EQ(packet.chunk_bytes(4122, 65, 0), 4122u);
    EXPECT_EQ(packet.chunk_end_ps(l, 4122, 65, 0), 329760);
}
