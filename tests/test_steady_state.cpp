// The steady-state verdict of --until steady (exec/steady_state.hpp) on series whose rates are
// known: where the window begins, the rate and its half-width, and that a window in which a BU
// built nothing is never called steady.
#include "exec/steady_report.hpp"
#include "exec/steady_state.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

using evb::BuilderSample;
using evb::Picoseconds;
using evb::SteadyRule;
using evb::SteadyState;

namespace {

constexpr double event_bytes = 1 << 20;
constexpr Picoseconds step = Picoseconds::from_seconds(10e-6);

// Feeds `samples` samples, 10 us apart, of BUs whose rate in Gb/s at sample i is rate(bu, i).
struct Series {
    std::uint32_t builders;
    std::vector<double> bytes;
    Series(std::uint32_t n) : builders(n), bytes(n) {}
    void feed(SteadyState& s, int from, int to, const std::function<double(std::uint32_t, int)>& rate) {
        std::vector<BuilderSample> now(builders);
        for (int i = from; i < to; ++i) {
            for (std::uint32_t b = 0; b < builders; ++b) {
                bytes[b] += rate(b, i) * 1e9 / 8 * step.seconds();
                now[b] = {static_cast<std::uint64_t>(bytes[b] / event_bytes), static_cast<std::uint64_t>(bytes[b])};
            }
            s.add(Picoseconds(step.count() * (i + 1)), now);
        }
    }
};

} // namespace

TEST(SteadyState, AWindowInWhichABuilderBuiltNothingIsNeverSteady) {
    SteadyState s(SteadyRule{}, 4);
    Series series(4);
    // BU 3 builds one event early on, then nothing: the other three run a steady 80 Gb/s.
    series.feed(s, 0, 3000, [](std::uint32_t b, int i) { return b < 3 ? 80.0 : (i < 20 ? 50.0 : 0.0); });
    const auto v = s.verdict();
    EXPECT_FALSE(v.steady);
    EXPECT_EQ(v.idle_builders, 1u);
    EXPECT_EQ(v.short_builders, 1u);
    EXPECT_EQ(v.slowest, 3u);
    EXPECT_EQ(v.slowest_gbps, 0.0);
    EXPECT_NE(v.why_not.find("1 of 4 BUs built fewer than 10 events in the window (1 none)"), std::string::npos) << v.why_not;
}

TEST(SteadyState, NoVerdictBeforeEveryBuilderHasItsFirstEvent) {
    SteadyState s(SteadyRule{}, 3);
    Series series(3);
    series.feed(s, 0, 200, [](std::uint32_t b, int) { return b == 2 ? 0.0 : 90.0; });
    const auto v = s.verdict();
    EXPECT_FALSE(v.steady);
    EXPECT_EQ(v.batches, 0u);
    EXPECT_EQ(v.why_not, "1 of 3 BUs have built no event yet");
}

TEST(SteadyState, AStartUpAboveTheSteadyRateIsLeftOutAndTheRateIsKnownWithinTheBound) {
    SteadyState s(SteadyRule{}, 8);
    Series series(8);
    std::mt19937 noise(7);
    std::normal_distribution<double> jitter(0, 4);
    // 100 Gb/s for the first 2 ms (every credit at once), then 75 +- 4 Gb/s per sample.
    auto rate = [&](std::uint32_t, int i) { return i < 200 ? 100.0 : 75.0 + jitter(noise); };
    series.feed(s, 0, 2000, rate);
    const auto v = s.verdict();
    ASSERT_TRUE(v.steady) << v.why_not;
    EXPECT_GE(v.began.seconds(), 2e-3); // MSER left the start-up out
    EXPECT_LT(v.began.seconds(), 10e-3);
    EXPECT_NEAR(v.mean_gbps, 75.0, 3 * v.half_width_gbps);
    EXPECT_LE(v.half_width_gbps, 0.01 * v.mean_gbps);
    EXPECT_GT(v.start_up_gbps, 90.0);
    EXPECT_EQ(v.idle_builders, 0u);
    EXPECT_EQ(v.batches, 20u);
}

TEST(SteadyState, ANoisyRateIsNotSteadyWhileItsHalfWidthIsAboveTheBound) {
    SteadyState s(SteadyRule{}, 2);
    Series series(2);
    std::mt19937 noise(11);
    std::normal_distribution<double> jitter(0, 40);
    series.feed(s, 0, 300, [&](std::uint32_t, int) { return std::max(0.0, 70.0 + jitter(noise)); });
    const auto v = s.verdict();
    EXPECT_FALSE(v.steady);
    EXPECT_LE(v.lag1, 0.2);
    EXPECT_NE(v.why_not.find("the half-width is"), std::string::npos) << v.why_not;
    EXPECT_GT(v.half_width_gbps, 0.01 * v.mean_gbps);
}

TEST(SteadyState, BatchMeansThatFollowOneAnotherAreNotTakenAsIndependent) {
    SteadyState s(SteadyRule{}, 2);
    Series series(2);
    // A slow swing, 40 to 100 Gb/s in 0.5 ms blocks: neighbouring batches of a short window agree.
    series.feed(s, 0, 300, [](std::uint32_t, int i) { return (i / 50) % 2 ? 100.0 : 40.0; });
    const auto v = s.verdict();
    EXPECT_FALSE(v.steady);
    EXPECT_GT(v.lag1, 0.2);
    EXPECT_NE(v.why_not.find("the batch means are correlated"), std::string::npos) << v.why_not;
}

TEST(SteadyState, ARateThatStillFallsIsNotSteady) {
    SteadyState s(SteadyRule{}, 4);
    Series series(4);
    std::mt19937 noise(3);
    std::normal_distribution<double> jitter(0, 1);
    // From 80 down to 60 Gb/s over the run, evenly: no part of it is the steady state.
    series.feed(s, 0, 1000, [&](std::uint32_t, int i) { return 80.0 - 20.0 * i / 1000 + jitter(noise); });
    const auto v = s.verdict();
    EXPECT_FALSE(v.steady);
    EXPECT_NE(v.why_not.find("the rate still drifts"), std::string::npos) << v.why_not;
}

TEST(SteadyState, ThinningKeepsTheNewestSampleAndDoublesTheSpacing) {
    SteadyRule rule;
    rule.max_samples = 100;
    SteadyState s(rule, 1);
    Series series(1);
    series.feed(s, 0, 100, [](std::uint32_t, int) { return 10.0; });
    EXPECT_EQ(s.next_due(step).count(), step.count() * 101);
    series.feed(s, 100, 101, [](std::uint32_t, int) { return 10.0; }); // 101 samples: every other one goes
    EXPECT_EQ(s.next_due(step).count(), step.count() * 103);
    EXPECT_EQ(s.verdict().until.count(), step.count() * 101);
}

TEST(SteadyState, SamplesThatGoBackInTimeOrMissABuilderAreRefused) {
    SteadyState s(SteadyRule{}, 2);
    std::vector<BuilderSample> two(2), one(1);
    s.add(step, two);
    EXPECT_THROW(s.add(step, two), std::invalid_argument);
    EXPECT_THROW(s.add(Picoseconds(2 * step.count()), one), std::invalid_argument);
}

TEST(StudentT, QuantilesOfTheTable) {
    EXPECT_DOUBLE_EQ(evb::student_t975(1), 12.706);
    EXPECT_DOUBLE_EQ(evb::student_t975(19), 2.093);
    EXPECT_NEAR(evb::student_t975(60), 2.000, 0.003);
    EXPECT_NEAR(evb::student_t975(120), 1.980, 0.003);
}

TEST(TargetVerdict, MetNotMetOrWithinTheHalfWidth) {
    evb::SteadyVerdict v;
    v.steady = true;
    v.mean_gbps = 80;
    v.half_width_gbps = 0.5;
    v.slowest_gbps = 76;
    auto t = evb::target_verdict(v, 79);
    EXPECT_EQ(t.average, true);
    EXPECT_EQ(t.slowest, false);
    t = evb::target_verdict(v, 80.2);
    EXPECT_FALSE(t.average.has_value());
    t = evb::target_verdict(v, 81);
    EXPECT_EQ(t.average, false);
    v.steady = false;
    EXPECT_FALSE(evb::target_verdict(v, 10).average.has_value());
}
