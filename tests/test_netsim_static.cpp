// Fat-tree topologies, routing engines and the static conflict analyser, against what the
// thesis (table 3.1, listing 3.1) and paper 003 (sec. 4.1) say must hold.
#include "netsim/fabric/conflict_analyser.hpp"
#include "netsim/fabric/fat_tree.hpp"

#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <set>

using namespace evb::netsim;

namespace {
FatTreeSpec tree(std::uint32_t k, std::uint32_t leaves = 0, std::vector<std::uint32_t> per_leaf = {},
                 std::vector<std::uint32_t> missing = {}, std::vector<std::pair<std::uint32_t, std::uint32_t>> swapped = {}) {
    FatTreeSpec s;
    s.k = k;
    s.leaves = leaves;
    s.hosts_per_leaf = std::move(per_leaf);
    s.missing_hosts = std::move(missing);
    s.swapped_hosts = std::move(swapped);
    return s;
}
std::uint32_t worst_phase(const std::vector<PhaseLoad>& phases) {
    std::uint32_t m = 0;
    for (const auto& p : phases) m = std::max(m, p.max_flows);
    return m;
}
std::uint32_t conflicting_phases(const std::vector<PhaseLoad>& phases) {
    return static_cast<std::uint32_t>(std::count_if(phases.begin(), phases.end(), [](const PhaseLoad& p) { return p.max_flows > 1; }));
}
} // namespace

TEST(FatTree, TableThreePointOneCounts) {
    for (std::uint32_t k : {2u, 4u, 16u}) {
        Topology t = build_fat_tree(tree(k));
        EXPECT_EQ(t.hosts().size(), 2 * k * k);
        EXPECT_EQ(t.switches().size(), 3 * k);
        for (auto s : t.switches()) {
            EXPECT_EQ(t.device(s).ports.size(), 2 * k);
            for (const auto& p : t.device(s).ports) EXPECT_TRUE(p.has_value()); // full tree: every port cabled
        }
    }
}

TEST(FatTree, ImpossibleParametersAreRefused) {
    EXPECT_THROW(build_fat_tree(tree(0)), std::invalid_argument);
    EXPECT_THROW(build_fat_tree(tree(4, 9)), std::invalid_argument); // > 2k leaves
    EXPECT_THROW(build_fat_tree(tree(2, 0, {3, 1, 1, 1})), std::invalid_argument); // > k hosts on a leaf
    EXPECT_THROW(build_fat_tree(tree(2, 0, {}, {99})), std::invalid_argument); // no such slot
    EXPECT_THROW(build_fat_tree(tree(2, 0, {}, {}, {{0, 0}})), std::invalid_argument); // swap with itself
}

TEST(Routing, FtreeOnFullTreesIsConflictFreeInEveryPhase) {
    for (std::uint32_t k : {2u, 3u, 4u, 8u}) {
        Topology t = build_fat_tree(tree(k));
        Routing r = route(t, RoutingEngine::ftree);
        auto phases = analyse_linear_shift(t, r);
        ASSERT_EQ(phases.size(), 2 * k * k - 1);
        for (const auto& p : phases) EXPECT_EQ(p.max_flows, 1u) << "k=" << k << " shift " << p.shift;
    }
}

TEST(Routing, EveryEngineReachesEveryPairWithMinimalHops) {
    Topology t = build_fat_tree(tree(4));
    for (auto e : {RoutingEngine::ftree, RoutingEngine::minhop, RoutingEngine::updn, RoutingEngine::random}) {
        Routing r = route(t, e, 7);
        for (auto a : t.hosts())
            for (auto b : t.hosts()) {
                if (a == b) continue;
                auto path = trace(t, r, a, b);
                bool same_leaf = t.device(a).ports[0]->device == t.device(b).ports[0]->device;
                EXPECT_EQ(path.size(), same_leaf ? 2u : 4u) << to_string(e); // host, leaf(, spine, leaf)
            }
    }
}

TEST(Routing, RandomAndMinhopShowConflictsWhereFtreeShowsNone) {
    Topology t = build_fat_tree(tree(4));
    EXPECT_EQ(worst_phase(analyse_linear_shift(t, route(t, RoutingEngine::ftree))), 1u);
    EXPECT_GT(worst_phase(analyse_linear_shift(t, route(t, RoutingEngine::random, 3))), 1u);
    // minhop balances port usage as OpenSM does, leaf by leaf with each leaf's hosts in port
    // order (tests/test_netsim_ibsim.cpp): on a full tree each leaf adds one route to every
    // up-port, so the LID order (a subnet manager's discovery order, shuffled) does not matter.
    EXPECT_EQ(worst_phase(analyse_linear_shift(t, route(t, RoutingEngine::minhop))), 1u);
    Topology shuffled = build_fat_tree(tree(4));
    shuffled.assign_lids(11);
    EXPECT_EQ(worst_phase(analyse_linear_shift(shuffled, route(shuffled, RoutingEngine::minhop))), 1u);
    EXPECT_EQ(worst_phase(analyse_linear_shift(shuffled, route(shuffled, RoutingEngine::ftree))), 1u);
}

TEST(Routing, PartiallyPopulatedLeafOrSwappedCablesCreateConflicts) {
    // k = 4: 32 slots. Leaf 1 has only 2 hosts: ranks shift across leaf boundaries unevenly.
    Topology partial = build_fat_tree(tree(4, 0, {4, 2, 4, 4, 4, 4, 4, 4}));
    auto p = analyse_linear_shift(partial, route(partial, RoutingEngine::ftree));
    EXPECT_GT(conflicting_phases(p), 0u);
    EXPECT_GE(worst_phase(p), 2u);
    // Two hosts on different leaves swap cables: rank order no longer follows the cabling.
    Topology swapped = build_fat_tree(tree(4, 0, {}, {}, {{1, 6}}));
    auto s = analyse_linear_shift(swapped, route(swapped, RoutingEngine::ftree));
    EXPECT_GT(conflicting_phases(s), 0u);
    EXPECT_EQ(worst_phase(s), 2u);
    // Ordering ranks by cabling (slot order) restores a conflict-free shift.
    std::vector<std::uint32_t> by_cabling = swapped.hosts();
    std::swap(by_cabling[1], by_cabling[6]);
    EXPECT_EQ(worst_phase(analyse_linear_shift(swapped, route(swapped, RoutingEngine::ftree), by_cabling)), 1u);
}

TEST(Routing, BrokenTablesAreReportedNotFollowed) {
    Topology t = build_fat_tree(tree(2));
    Routing r = route(t, RoutingEngine::ftree);
    std::uint32_t dst = t.hosts()[5], leaf0 = t.switches()[0];
    std::uint32_t lid = t.device(dst).lid;
    Routing unreachable = r;
    unreachable.lft[leaf0][lid] = no_port;
    EXPECT_THROW(check_all_pairs(t, unreachable), RoutingError);
    // A loop: leaf 0 sends dst up to spine 0, spine 0 sends it back to leaf 0.
    Routing loop = r;
    std::uint32_t spine0 = t.switches()[4];
    loop.lft[leaf0][lid] = 2; // up-port to spine 0
    loop.lft[spine0][lid] = 0; // down to leaf 0
    try {
        check_all_pairs(t, loop);
        FAIL() << "loop accepted";
    } catch (const RoutingError& e) {
        EXPECT_NE(std::string(e.what()).find("loop"), std::string::npos) << e.what();
    }
}

TEST(FatTree, ThreeLevelCounts) {
    for (std::uint32_t k : {2u, 4u}) {
        FatTreeSpec s;
        s.k = k;
        s.levels = 3;
        Topology t = build_fat_tree(s);
        EXPECT_EQ(t.hosts().size(), 2 * k * k * k);
        EXPECT_EQ(t.switches().size(), 2 * k * k + 2 * k * k + k * k); // leaves, aggregation, cores
        Routing r = route(t, RoutingEngine::ftree);
        // As OpenSM routes it (tests/test_netsim_ibsim.cpp): from k = 4 on, the first leaf of its
        // switch table (GUIDs in network byte order) is not the first host's, and a shift in host
        // order shares channels in some phases.
        const auto phases = analyse_linear_shift(t, r);
        EXPECT_EQ(worst_phase(phases), k == 2 ? 1u : 2u) << "k = " << k;
    }
}

// --radix sizing: leaves of R/2 hosts as the hosts need them; 2 levels up to R^2/2 hosts (all
// R/2 spines), 3 levels beyond (the pods the leaves fill, all (R/2)^2 cores). Every switch has R
// ports; the counts are table 3.1's with k = R/2 and only the leaves a site would buy.
TEST(FatTree, SizedForTheHostsFromTheSwitchRadix) {
    struct Case {
        std::uint32_t hosts, radix, levels, leaves, middle, cores;
    } cases[] = {
        {500, 36, 2, 28, 18, 0}, // 28 leaves (504 host ports) + 18 spines
        {648, 36, 2, 36, 18, 0}, // R^2/2: the full 2-level tree of table 3.1, 3k = 54 switches
        {649, 36, 3, 37, 54, 324}, // one host more: 3 pods of 18 aggregation switches, k^2 cores
        {1000, 36, 3, 56, 72, 324}, // 4 pods
        {4096, 36, 3, 228, 234, 324}, // 13 pods
        {2048, 64, 2, 64, 32, 0}, // 64-port switches: R^2/2 = 2048 hosts in 2 levels
    };
    for (const auto& c : cases) {
        FatTreeSpec s = sized_fat_tree(c.hosts, c.radix);
        EXPECT_EQ(s.k, c.radix / 2);
        EXPECT_EQ(s.levels, c.levels) << c.hosts;
        EXPECT_EQ(s.leaves, c.leaves) << c.hosts;
        Topology t = build_fat_tree(s);
        EXPECT_EQ(t.hosts().size(), std::size_t{c.leaves} * c.radix / 2) << c.hosts;
        EXPECT_GE(t.hosts().size(), c.hosts);
        EXPECT_EQ(t.switches().size(), std::size_t{c.leaves} + c.middle + c.cores) << c.hosts;
        for (auto sw : t.switches()) EXPECT_EQ(t.device(sw).ports.size(), c.radix);
    }
    EXPECT_EQ(sized_fat_tree(500, 36, 3).levels, 3u); // --levels 3 asked for
    EXPECT_THROW(sized_fat_tree(700, 36, 2), std::invalid_argument); // > R^2/2 in 2 levels
    EXPECT_THROW(sized_fat_tree(11665, 36), std::invalid_argument); // > R^3/4
    EXPECT_THROW(sized_fat_tree(100, 37), std::invalid_argument); // odd radix
    EXPECT_THROW(sized_fat_tree(100, 2), std::invalid_argument);
}

// A sized 2-level tree with fewer leaves than the full tree is routed conflict-free by ftree (the
// linear shifter over the 54 host ports of 9 leaves).
// Fewer spines, each leaf's up-links spread over them in parallel cables: 8 leaves of 18 hosts
// need 4 spines' worth of ports, so 6 spines with 3 cables from each leaf (6 divides 18), not 18.
TEST(FatTree, FewerSpinesTakeParallelCables) {
    FatTreeSpec spec;
    spec.k = 18;
    spec.leaves = 8;
    spec.spines = 6;
    Topology t = build_fat_tree(spec);
    EXPECT_EQ(t.hosts().size(), 144u);
    EXPECT_EQ(t.switches().size(), 14u);
    const Device& leaf = t.device(t.switches()[0]);
    std::map<std::uint32_t, int> cables; // spine -> cables from leaf 0
    for (std::uint32_t p = 18; p < 36; ++p) ++cables[leaf.ports[p]->device];
    EXPECT_EQ(cables.size(), 6u);
    for (const auto& [spine, n] : cables) EXPECT_EQ(n, 3) << t.device(spine).name;
    Routing r = route(t, RoutingEngine::ftree);
    EXPECT_EQ(worst_phase(analyse_linear_shift(t, r)), 1u); // ftree balances over every cable
    spec.spines = 4; // 36-port spines, 8 leaves of 18 / 4 cables: not even
    EXPECT_THROW(build_fat_tree(spec), std::invalid_argument);
    spec.spines = 3; // 6 cables each: only 6 leaves fit
    EXPECT_THROW(build_fat_tree(spec), std::invalid_argument);
    spec.spines = 9;
    EXPECT_EQ(build_fat_tree(spec).switches().size(), 17u);
}

TEST(Routing, FtreeOnASizedTreeIsConflictFree) {
    Topology t = build_fat_tree(sized_fat_tree(50, 12)); // k = 6: 9 of 12 leaves, 6 spines
    Routing r = route(t, RoutingEngine::ftree);
    EXPECT_EQ(worst_phase(analyse_linear_shift(t, r)), 1u);
}
