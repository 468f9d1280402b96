#include "barrel_shift.hpp"
#include "random_order.hpp"

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
