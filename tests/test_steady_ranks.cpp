// --until steady at rank 0 of a distributed run (exec/steady_ranks.hpp): each rank's records,
// numbered by period, become one sample of every BU per period, and a record that goes back in
// time or counts, or comes from beyond rank 0's clock, is refused with the reason.
#include "exec/steady_ranks.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace evb;

namespace {

constexpr Picoseconds period = Picoseconds::from_seconds(0.1);
constexpr std::uint64_t event_bytes = 1 << 20;

Config steady_config() {
    Config c;
    c.until = Until::steady;
    c.steady_bound_percent = 1;
    c.steady_events = 10;
    return c;
}

// A BU that has built `events` events of event_bytes.
ProgressCounts built(std::uint64_t events) {
    ProgressCounts p;
    p.events = events;
    p.built_bytes = events * event_bytes;
    return p;
}

Picoseconds end_of(std::uint64_t k) { return Picoseconds(static_cast<std::int64_t>(k) * period.count()); }

} // namespace

// Three ranks, each an RU and a BU building 100 events a period: their records, sent in any
// order across ranks, give the rate of 100 x 1 MiB per 0.1 s per node, and the verdict comes
// once there are enough periods; what comes after it changes nothing.
TEST(SteadyRanks, RecordsOfEveryRankBecomeOneSampleAPeriodAndTheVerdictHolds) {
    const Layout layout(3, 1, false, EmPlacement::rank0);
    SteadyRanks steady(steady_config(), layout, period);
    std::mt19937 order(7);
    std::uint64_t k = 1;
    for (; k <= 400 && !steady.reached(); ++k) {
        std::vector<std::uint32_t> ranks{0, 1, 2};
        std::shuffle(ranks.begin(), ranks.end(), order);
        for (auto r : ranks) ASSERT_FALSE(steady.take(r, k, built(100 * k), end_of(k)));
    }
    ASSERT_TRUE(steady.reached()) << steady.verdict().why_not;
    const SteadyVerdict v = steady.verdict();
    EXPECT_NEAR(v.mean_gbps, 100.0 * event_bytes * 8 / period.seconds() / 1e9, 1e-9);
    EXPECT_NEAR(v.half_width_gbps, 0, 1e-9);
    EXPECT_EQ(v.idle_builders, 0u);
    const Picoseconds until = v.until;
    for (std::uint32_t r = 0; r < 3; ++r) ASSERT_FALSE(steady.take(r, k, built(100 * (k - 1)), end_of(k))); // a stall, after the verdict
    EXPECT_EQ(steady.verdict().until, until);
}

// A rank that falls behind holds the samples back; one that skips periods (its loop was late)
// stands for them with its next record.
TEST(SteadyRanks, APeriodIsSampledOnceEveryBuilderHasARecordForIt) {
    const Layout layout(2, 1, false, EmPlacement::rank0);
    SteadyRanks steady(steady_config(), layout, period);
    for (std::uint64_t k = 1; k <= 5; ++k) ASSERT_FALSE(steady.take(0, k, built(10 * k), end_of(k)));
    EXPECT_EQ(steady.verdict().why_not, "no sample yet");
    ASSERT_FALSE(steady.take(1, 4, built(40), end_of(5)));
    EXPECT_EQ(steady.verdict().until, end_of(4));
    ASSERT_FALSE(steady.take(1, 5, built(50), end_of(5)));
    EXPECT_EQ(steady.verdict().until, end_of(5));
}

// Records of a rank that hosts no BU (an EM of its own) are the progress lines' only.
TEST(SteadyRanks, ARankWithoutABuilderIsNotWaitedFor) {
    const Layout layout(2, 1, true, EmPlacement::own_rank);
    ASSERT_EQ(layout.ranks(), 3u);
    ASSERT_TRUE(layout.units_on(2).manager && !layout.units_on(2).builder);
    SteadyRanks steady(steady_config(), layout, period);
    ASSERT_FALSE(steady.take(0, 1, built(10), end_of(1)));
    ASSERT_FALSE(steady.take(1, 1, built(10), end_of(1)));
    EXPECT_EQ(steady.verdict().until, end_of(1));
    ASSERT_FALSE(steady.take(2, 1, built(0), end_of(1)));
}

TEST(SteadyRanks, ARecordBackInTimeOrCountsOrFromBeyondRankZerosClockIsRefused) {
    const Layout layout(2, 1, false, EmPlacement::rank0);
    SteadyRanks steady(steady_config(), layout, period);
    ASSERT_FALSE(steady.take(1, 3, built(30), end_of(3)));
    EXPECT_EQ(steady.take(1, 3, built(30), end_of(3)), "it sent a progress record for period 3 after one for period 3");
    EXPECT_EQ(steady.take(1, 2, built(40), end_of(3)), "it sent a progress record for period 2 after one for period 3");
    ProgressCounts beyond = built(40);
    beyond.built_bytes = UINT64_MAX / 2 + 1;
    EXPECT_EQ(steady.take(1, 4, beyond, end_of(4)),
              "its progress record for period 4 counts 9223372036854775808 bytes built, more than 2 BUs' counts can add up to");
    EXPECT_EQ(steady.take(1, 4, built(29), end_of(4)), "its progress record for period 4 counts fewer events or bytes than the one before");
    // Rank 0's clock in period 4: a rank may be ahead by its start's delay (1 s), not more.
    EXPECT_FALSE(steady.take(1, 14, built(140), end_of(4)));
    EXPECT_EQ(steady.take(1, 15, built(150), end_of(4)),
              "it sent a progress record for period 15 of 0.1 s while rank 0's clock is in period 4");
    EXPECT_EQ(steady.take(1, UINT64_MAX, built(150), end_of(4)),
              "it sent a progress record for period 18446744073709551615 of 0.1 s while rank 0's clock is in period 4");
}

// The slowest BU is named by its node, the table's row: in a split layout BU j is node R + j.
TEST(SteadyRanks, TheSlowestBuilderIsNamedByItsNode) {
    const Layout layout(5, 1, false, EmPlacement::rank0, 3);
    ASSERT_EQ(layout.units_on(4).builder, 1u);
    SteadyRanks steady(steady_config(), layout, period);
    for (std::uint64_t k = 1; k <= 400 && !steady.reached(); ++k)
        for (std::uint32_t r = 0; r < layout.ranks(); ++r) ASSERT_FALSE(steady.take(r, k, built((r == 4 ? 90 : 100) * k), end_of(k)));
    ASSERT_TRUE(steady.reached()) << steady.verdict().why_not;
    EXPECT_EQ(steady.verdict().slowest, 4u);
}
