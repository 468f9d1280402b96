#include "scheduling/barrel_shift.hpp"
#include "scheduling/random_order.hpp"
#include "scheduling/time_windows.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

using namespace evb;

namespace {
bool is_permutation_of_n(const std::vector<std::uint32_t>& v) {
    std::vector<std::uint32_t> s = v;
    std::sort(s.begin(), s.end());
    for (std::uint32_t i = 0; i < s.size(); ++i)
        if (s[i] != i) return false;
    return true;
}
} // namespace

TEST(BarrelShift, StartsAtOwnIndexAndShifts) {
    BarrelShift b;
    std::vector<std::uint32_t> order(5);
    b.order(3, 0, order);
    EXPECT_EQ(order, (std::vector<std::uint32_t>{3, 4, 0, 1, 2}));
}

TEST(BarrelShift, TheShiftedPeerOfAStepBeyondAnyRoundIsItsRemainderNotAnOverflow) {
    EXPECT_EQ(shifted_peer(3, 4, 5), 2u);
    // A phase counter that ran long: self + step would wrap 2^64 and land elsewhere.
    EXPECT_EQ(shifted_peer(3, UINT64_MAX, 5), (3 + UINT64_MAX % 5) % 5);
    EXPECT_EQ(shifted_peer(4'000'000'000u, UINT64_MAX - 1, 4'000'000'001u),
              (4'000'000'000u + (UINT64_MAX - 1) % 4'000'000'001u) % 4'000'000'001u);
}

TEST(BarrelShift, EveryPhaseIsAPermutation) {
    BarrelShift b;
    for (std::uint32_t n : {2u, 3u, 8u, 16u, 61u}) {
        std::vector<std::vector<std::uint32_t>> orders(n, std::vector<std::uint32_t>(n));
        for (std::uint32_t bu = 0; bu < n; ++bu) b.order(bu, 7, orders[bu]);
        for (std::uint32_t step = 0; step < n; ++step) {
            std::set<std::uint32_t> targets;
            for (std::uint32_t bu = 0; bu < n; ++bu) targets.insert(orders[bu][step]);
            EXPECT_EQ(targets.size(), n) << "two BUs target one RU in phase " << step << " of N=" << n;
        }
    }
}

TEST(RandomOrder, PermutationsSeededAndVarying) {
    RandomOrder r(42), same(42), other(43);
    std::vector<std::uint32_t> a(16), b(16), c(16), d(16);
    r.order(2, 5, a);
    same.order(2, 5, b);
    other.order(2, 5, c);
    r.order(2, 6, d);
    EXPECT_TRUE(is_permutation_of_n(a));
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_NE(a, d);
}

// a2a's windows: 100 us to send, 10 us idle, 30 us messages.
TEST(TimeWindows, PhasesAndTheirSendWindowsFollowTheClock) {
    auto us = [](std::int64_t n) { return Picoseconds(n * 1'000'000); };
    const TimeWindows w(us(100), us(10), us(30));
    const auto first = w.at(Picoseconds(0));
    EXPECT_EQ(first.phase, 0);
    EXPECT_EQ(first.start, Picoseconds(0));
    EXPECT_EQ(first.end, us(100));
    EXPECT_EQ(first.next, us(110));
    EXPECT_EQ(w.at(us(105)).phase, 0); // in phase 0's idle window
    EXPECT_EQ(w.at(us(110)).phase, 1);
    const auto third = w.at(us(225));
    EXPECT_EQ(third.phase, 2);
    EXPECT_EQ(third.start, us(220));
    EXPECT_EQ(third.end, us(320));
    // Every phase is a permutation of the peers, shifted by one from the last.
    for (std::int64_t phase = 0; phase < 5; ++phase) {
        std::set<std::uint32_t> peers;
        for (std::uint32_t self = 0; self < 4; ++self) peers.insert(TimeWindows::peer(self, phase, 4));
        EXPECT_EQ(peers.size(), 4u);
        EXPECT_EQ(TimeWindows::peer(1, phase, 4), (1 + phase) % 4);
    }
}

TEST(TimeWindows, MessagesFitBackToBackFromTheWindowsStartAndNeverSpillIntoTheIdleWindow) {
    auto us = [](std::int64_t n) { return Picoseconds(n * 1'000'000); };
    const TimeWindows w(us(100), us(10), us(30));
    EXPECT_EQ(w.per_window(), 3u);
    EXPECT_NEAR(w.fill(), 0.9, 1e-12);
    EXPECT_NEAR(w.rate(100), 100.0 * 100 / 110, 1e-9); // eq. 3.2
    const auto win = w.at(us(150)); // phase 1: 110-210 us
    // A sender idle since long ago, woken late (at 150 us), still counts from the start: 140 us.
    std::optional<Picoseconds> done = w.fit(win, Picoseconds(0));
    ASSERT_TRUE(done);
    EXPECT_EQ(*done, us(140));
    done = w.fit(win, *done);
    ASSERT_TRUE(done);
    EXPECT_EQ(*done, us(170));
    done = w.fit(win, *done);
    ASSERT_TRUE(done);
    EXPECT_EQ(*done, us(200));
    EXPECT_FALSE(w.fit(win, *done)); // a fourth would end at 230 us, in the idle window
    // A window one picosecond short of 4 messages holds 3.
    const TimeWindows short_one(us(120) - Picoseconds(1), Picoseconds(0), us(30));
    EXPECT_EQ(short_one.per_window(), 3u);
    EXPECT_LT(short_one.fill(), 0.751);
}

// The window a user can give (--send-window takes whole nanoseconds) that holds n messages: ten
// messages of 300.883123 us need 3008832 ns; a window rounded to the nanosecond below (3008831 ns)
// holds 9.
TEST(TimeWindows, TheSendWindowThatHoldsNMessagesIsRoundedUpToANanosecond) {
    const Picoseconds message(300'883'123);
    const TimeWindows w(Picoseconds(3'008'000'000), Picoseconds(0), message);
    EXPECT_EQ(w.per_window(), 9u);
    const Picoseconds ten = w.send_window_holding(10);
    EXPECT_EQ(ten, Picoseconds(3'008'832'000));
    EXPECT_EQ(TimeWindows(ten, Picoseconds(0), message).per_window(), 10u);
    EXPECT_EQ(TimeWindows(ten - Picoseconds(1000), Picoseconds(0), message).per_window(), 9u);
    EXPECT_EQ(w.send_window_holding(4), Picoseconds(1'203'533'000)); // 1203532.492 ns, up
}
