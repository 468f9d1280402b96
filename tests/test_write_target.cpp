// The one bounds check of a write into registered memory (drivers/transport/write_target.hpp),
// with the offsets a crafted frame used: near 2^64, where offset + length wraps.
#include "drivers/transport/write_target.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {

constexpr std::uint64_t top = ~std::uint64_t{0};

TEST(WriteTarget, SpanFitsWithoutASumThatWraps) {
    EXPECT_TRUE(evb::span_fits(0, 4096, 4096));
    EXPECT_TRUE(evb::span_fits(4095, 1, 4096));
    EXPECT_TRUE(evb::span_fits(4096, 0, 4096));
    EXPECT_FALSE(evb::span_fits(4096, 1, 4096));
    EXPECT_FALSE(evb::span_fits(4000, 200, 4096));
    EXPECT_FALSE(evb::span_fits(4097, 0, 4096));
    EXPECT_FALSE(evb::span_fits(0, 4097, 4096));
    // offset + length wraps to 48, 64 and 0: inside 4096 B, were it summed
    EXPECT_FALSE(evb::span_fits(top - 15, 64, 4096));
    EXPECT_FALSE(evb::span_fits(top - (std::uint64_t{1} << 20) + 1, (std::uint64_t{1} << 20) + 64, 4096));
    EXPECT_FALSE(evb::span_fits(top - (std::uint64_t{1} << 36) + 1, (std::uint64_t{1} << 36) + 64, 4096));
    EXPECT_FALSE(evb::span_fits(1, top, 4096));
    EXPECT_TRUE(evb::span_fits(0, top, top));
    EXPECT_FALSE(evb::span_fits(1, top, top));
}

TEST(WriteTarget, LandsInsideItsRegionOrIsRefusedSayingWhy) {
    std::array<std::byte, 4096> a{}, b{};
    const std::vector<evb::MemoryRegion> regions{{a.data(), a.size(), 1}, {b.data(), b.size(), 2}};
    const evb::WriteTarget ok = evb::write_target(regions, 2, 100, 3996);
    EXPECT_EQ(ok.at, b.data() + 100);
    EXPECT_TRUE(ok.why.empty());

    const evb::WriteTarget no_key = evb::write_target(regions, 3, 0, 16);
    EXPECT_EQ(no_key.at, nullptr);
    EXPECT_EQ(no_key.why,
              "a write of 16 B at offset 0 into region 3, which is not registered here: a write outside the registered regions");
    EXPECT_EQ(evb::write_target(regions, 0, 0, 16).at, nullptr);

    const evb::WriteTarget wraps = evb::write_target(regions, 1, top - 15, 64);
    EXPECT_EQ(wraps.at, nullptr);
    EXPECT_EQ(wraps.why, "a write of 64 B at offset 18446744073709551600 into region 1 of 4096 B: outside the registered regions");
    EXPECT_EQ(evb::write_target(regions, 1, 4000, 200).at, nullptr);
}

TEST(WriteTarget, ALocalSourceIsCheckedTheSameWay) {
    std::array<std::byte, 4096> a{};
    const evb::MemoryRegion local{a.data(), a.size(), 1};
    EXPECT_EQ(evb::local_source_error(local, 0, 4096), "");
    EXPECT_EQ(evb::local_source_error(local, top - 15, 64),
              "a write from 64 B at offset 18446744073709551600 of a local region of 4096 B: beyond the local region");
}

} // namespace
