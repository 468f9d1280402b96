// A progress line's figures (src/report, ProgressPrinter): an interval's rates are what the counts
// since the start grew by over it, and lines that reach into the warm-up or the start-up say so.
// Before, a line's rates came from the nodes' window counts, which the warm-up's end set back to
// zero node by node: the line at the boundary read 1.8e19 Hz and the event count went backwards.
#include "report/report.hpp"

#include <gtest/gtest.h>

using namespace evb;

namespace {

Picoseconds ms(std::int64_t n) { return Picoseconds(n * 1'000'000'000); }

TEST(ProgressPrinter, AnIntervalsRatesAreWhatItsCountsGrewBy) {
    ProgressPrinter p(4, 2, 2);
    const ProgressLine first = p.next(ms(100), {1'000'000, 2'000'000, 10, 3});
    EXPECT_DOUBLE_EQ(first.rate_hz, 100.0);
    EXPECT_DOUBLE_EQ(first.in_gbps, 1e6 * 8 / 0.1 / 1e9 / 4); // per BU
    EXPECT_DOUBLE_EQ(first.out_gbps, 2e6 * 8 / 0.1 / 1e9 / 2); // per RU
    EXPECT_EQ(first.events, 10u);
    EXPECT_EQ(first.in_flight, 3u);
    EXPECT_EQ(first.mark, "");
    const ProgressLine second = p.next(ms(300), {3'000'000, 2'000'000, 50, 1});
    EXPECT_DOUBLE_EQ(second.rate_hz, 40 / 0.2);
    EXPECT_DOUBLE_EQ(second.in_gbps, 2e6 * 8 / 0.2 / 1e9 / 4);
    EXPECT_DOUBLE_EQ(second.out_gbps, 0.0);
    EXPECT_EQ(second.events, 50u);
}

TEST(ProgressPrinter, LinesReachingIntoTheWarmUpAreMarked) {
    ProgressPrinter p(2, 2, 2, ms(1000));
    EXPECT_EQ(p.next(ms(500), {10, 10, 1, 0}).mark, "  (warm-up: not counted)");
    EXPECT_EQ(p.next(ms(1000), {20, 20, 2, 0}).mark, "  (warm-up: not counted)"); // the line at its end: all of it warm-up
    EXPECT_EQ(p.next(ms(1500), {30, 30, 3, 0}).mark, ""); // from its end on: counted
    EXPECT_EQ(p.next(ms(2000), {40, 40, 4, 0}).mark, "");
    ProgressPrinter q(2, 2, 2, ms(1200));
    q.next(ms(1000), {20, 20, 2, 0});
    EXPECT_EQ(q.next(ms(1500), {30, 30, 3, 0}).mark, "  (warm-up until 1.2 s: partly not counted)");
}

TEST(ProgressPrinter, ALineBeforeTheFirstEventSaysItIsStartUp) {
    ProgressPrinter p(2, 2, 6);
    EXPECT_EQ(p.next(ms(1), {1000, 1000, 0, 8}).mark, "  (start-up: no event built yet)");
    EXPECT_EQ(p.next(ms(2), {2000, 2000, 1, 8}).mark, "");
}

// A sum that fell (it cannot: the counts only grow) shows nothing moved, never 2^64 less.
TEST(ProgressPrinter, ACountThatFellIsNoneNotAWrappedDifference) {
    ProgressPrinter p(2, 2, 2);
    p.next(ms(100), {5000, 5000, 50, 0});
    const ProgressLine l = p.next(ms(200), {4000, 4000, 40, 0});
    EXPECT_EQ(l.rate_hz, 0.0);
    EXPECT_EQ(l.in_gbps, 0.0);
    EXPECT_EQ(l.out_gbps, 0.0);
}

} // namespace
