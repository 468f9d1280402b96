// The tcp driver's frame reader on crafted streams: a write whose offset + length wraps in 64 bits
// is refused before any byte lands (the frames that crashed a receiver or wrote before its
// region), frames split anywhere are read alike, and a malformed header is one reason.
#include "drivers/tcp/tcp_frame.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace evb;

namespace {

struct Rank final : TcpFrameReader::Sink {
    std::vector<std::byte> memory = std::vector<std::byte>(4096, std::byte{0});
    std::vector<MemoryRegion> regions{{memory.data(), memory.size(), 1}};
    std::vector<Completion> arrived_;
    WriteTarget target(std::uint64_t key, std::uint64_t offset, std::uint64_t length) override {
        return write_target(regions, key, offset, length);
    }
    void arrived(const Completion& c) override { arrived_.push_back(c); }
    bool untouched() const {
        for (std::byte b : memory)
            if (b != std::byte{0}) return false;
        return true;
    }
};

std::vector<std::byte> frame(WriteHeader h, std::size_t body_bytes, std::byte fill = std::byte{0x5A}) {
    std::vector<std::byte> out(sizeof h + body_bytes, fill);
    std::memcpy(out.data(), &h, sizeof h);
    return out;
}

} // namespace

TEST(TcpFrameReader, WritesWhoseEndWrapsAreRefusedBeforeAnyByteLands) {
    const std::uint64_t all_ones = ~std::uint64_t{0};
    // The three crafted frames of the report: a SIGSEGV, a write 16 B before the region, and one
    // nobody noticed.
    for (auto [offset, length] :
         {std::pair{all_ones - (std::uint64_t{1} << 36) + 1, (std::uint64_t{1} << 36) + 64}, std::pair{all_ones - 15, std::uint64_t{64}},
          std::pair{all_ones - (std::uint64_t{1} << 20) + 1, (std::uint64_t{1} << 20) + 64}}) {
        Rank r;
        TcpFrameReader reader;
        const auto bytes = frame({tcp_frame_write, 0, 1, offset, length}, 64);
        const std::string why = reader.take(bytes, r);
        EXPECT_EQ(why,
                  "a write of " + std::to_string(length) + " B at offset " + std::to_string(offset) +
                      " into region 1 of 4096 B: outside the registered regions");
        EXPECT_TRUE(r.arrived_.empty());
        EXPECT_TRUE(r.untouched());
    }
}

TEST(TcpFrameReader, AStreamSplitAtEveryByteGivesTheSameFramesAndBytes) {
    std::vector<std::byte> stream;
    auto add = [&](const std::vector<std::byte>& f) { stream.insert(stream.end(), f.begin(), f.end()); };
    add(frame({tcp_frame_message, 0, 0, 0, command_bytes}, command_bytes, std::byte{7}));
    add(frame({tcp_frame_write, 42, 1, 100, 300}, 300, std::byte{9}));
    add(frame({tcp_frame_write, 43, 1, 4000, 0}, 0)); // an empty write lands nowhere and completes
    add(frame({tcp_frame_write, 44, 1, 4032, 64}, 64, std::byte{3}));
    Rank whole, bytewise;
    TcpFrameReader a, b;
    ASSERT_EQ(a.take(stream, whole), "");
    for (std::size_t i = 0; i < stream.size(); ++i) ASSERT_EQ(b.take(std::span(stream).subspan(i, 1), bytewise), "");
    ASSERT_EQ(whole.arrived_.size(), 4u);
    ASSERT_EQ(bytewise.arrived_.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(whole.arrived_[i].kind, bytewise.arrived_[i].kind);
        EXPECT_EQ(whole.arrived_[i].imm, bytewise.arrived_[i].imm);
        EXPECT_EQ(whole.arrived_[i].offset, bytewise.arrived_[i].offset);
        EXPECT_EQ(whole.arrived_[i].command, bytewise.arrived_[i].command);
    }
    EXPECT_EQ(whole.arrived_[0].command[63], std::byte{7});
    EXPECT_EQ(whole.arrived_[1].length, 300u);
    EXPECT_EQ(whole.memory, bytewise.memory);
    EXPECT_EQ(whole.memory[100], std::byte{9});
    EXPECT_EQ(whole.memory[399], std::byte{9});
    EXPECT_EQ(whole.memory[400], std::byte{0});
    EXPECT_EQ(whole.memory[4095], std::byte{3});
}

TEST(TcpFrameReader, ABodyReceivedStraightIntoItsRegionCompletesOnce) {
    Rank r;
    TcpFrameReader reader;
    const auto head = frame({tcp_frame_write, 5, 1, 1024, 1000}, 10, std::byte{1});
    ASSERT_EQ(reader.take(head, r), "");
    std::span<std::byte> room = reader.body_room(r);
    ASSERT_EQ(room.size(), 990u);
    EXPECT_EQ(room.data(), r.memory.data() + 1034);
    std::memset(room.data(), 2, room.size());
    EXPECT_EQ(reader.landed(990, r), "");
    ASSERT_EQ(r.arrived_.size(), 1u);
    EXPECT_EQ(r.arrived_[0].imm, 5u);
    EXPECT_TRUE(reader.body_room(r).empty());
    EXPECT_NE(reader.landed(1, r), ""); // no body is open
}

TEST(TcpFrameReader, MalformedHeadersAreOneReason) {
    Rank r;
    EXPECT_EQ(TcpFrameReader().take(frame({7, 0, 0, 0, 64}, 64), r), "a frame of unknown kind 7");
    EXPECT_EQ(TcpFrameReader().take(frame({tcp_frame_message, 0, 0, 0, 65}, 65), r), "a message frame of 65 B (commands are 64 B)");
    EXPECT_EQ(TcpFrameReader().take(frame({tcp_frame_write, 0, 2, 0, 64}, 64), r),
              "a write of 64 B at offset 0 into region 2, which is not registered here: a write outside the registered regions");
    EXPECT_TRUE(r.arrived_.empty());
    EXPECT_TRUE(r.untouched());
}

// tcp sends commands and writes on connections of their own: each refuses the other's frames.
TEST(TcpFrameReader, AConnectionForOneKindRefusesTheOther) {
    Rank r;
    EXPECT_EQ(TcpFrameReader(tcp_frame_message).take(frame({tcp_frame_write, 0, 1, 0, 16}, 16), r), "a write on its command connection");
    EXPECT_EQ(TcpFrameReader(tcp_frame_write).take(frame({tcp_frame_message, 0, 0, 0, command_bytes}, command_bytes), r),
              "a command on its write connection");
    EXPECT_EQ(TcpFrameReader(tcp_frame_write).take(frame({tcp_frame_write, 0, 1, 0, 16}, 16), r), "");
    EXPECT_EQ(TcpFrameReader(tcp_frame_message).take(frame({tcp_frame_message, 0, 0, 0, command_bytes}, command_bytes), r), "");
}
