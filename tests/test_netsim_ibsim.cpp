// The importers against the real tools: evbench writes a fat tree as an ibsim net file, ibsim
// serves it, OpenSM routes it (ftree with the spines as roots, updn, minhop), ibnetdiscover,
// ibroute, dump_lfts and ibtracert dump it, and evbench reads the dumps back.
#include "fabric_expectations.hpp"
#include "ibsim_fabric.hpp"
#include "netsim/fabric/conflict_analyser.hpp"
#include "netsim/fabric/fat_tree.hpp"
#include "netsim/fabric/host_order.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/lft_dump_format.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

using namespace evb::netsim;
using evb::test::IbsimFabric;

namespace {

FatTreeSpec full(std::uint32_t k) {
    FatTreeSpec s;
    s.k = k;
    return s;
}
FatTreeSpec partial() { // leaves with 3 and 2 hosts, a missing host, a swapped cable
    FatTreeSpec s = full(4);
    s.hosts_per_leaf = {4, 4, 3, 4, 2, 4, 4, 4};
    s.missing_hosts = {1};
    s.swapped_hosts = {{1, 6}};
    return s;
}

std::vector<std::uint32_t> phase_flows(const Topology& t, const Routing& r) {
    std::vector<std::uint32_t> flows;
    for (const auto& p : analyse_linear_shift(t, r)) flows.push_back(p.max_flows);
    return flows;
}

// (node GUID, output IB port) per hop, as ibtracert prints a path.
using Hops = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

// Every pair whose source is the shard-th host of every `shards`.
std::map<std::pair<std::uint32_t, std::uint32_t>, Hops> ibtracert_pairs(const IbsimFabric& sim, const Topology& t, std::size_t shard,
                                                                        std::size_t shards) {
    std::string script;
    const auto& hosts = t.hosts();
    for (std::size_t i = shard; i < hosts.size(); i += shards)
        for (auto b : hosts)
            if (auto a = hosts[i]; a != b)
                script += "echo '== " + std::to_string(t.device(a).lid) + " " + std::to_string(t.device(b).lid) + "'; ibtracert " +
                    std::to_string(t.device(a).lid) + " " + std::to_string(t.device(b).lid) + "; ";
    std::istringstream out(sim.tool("sh -c \"" + script + "\""));
    static const std::regex from(R"re(^From ca \{0x([0-9a-f]+)\})re");
    static const std::regex hop(R"re(^\[(\d+)\] -> (switch|ca) port \{0x([0-9a-f]+)\})re");
    std::map<std::pair<std::uint32_t, std::uint32_t>, Hops> paths;
    Hops* current = nullptr;
    std::uint64_t at = 0;
    std::string line;
    while (std::getline(out, line)) {
        std::smatch m;
        if (line.rfind("== ", 0) == 0) {
            std::istringstream ids(line.substr(3));
            std::uint32_t s = 0, d = 0;
            ids >> s >> d;
            current = &paths[{s, d}];
        } else if (std::regex_search(line, m, from)) {
            at = std::stoull(m[1], nullptr, 16);
        } else if (current && std::regex_search(line, m, hop)) {
            current->emplace_back(at, static_cast<std::uint32_t>(std::stoul(m[1])));
            at = std::stoull(m[3], nullptr, 16);
        }
    }
    return paths;
}

} // namespace

class IbsimTools : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(evb::test::ibsim_tools_present()) << "ibsim-utils, opensm and infiniband-diags are missing: run launch/setup-debian.sh";
    }
};

TEST_F(IbsimTools, ImportedTopologyHasTheNetFilesNodesPortsAndCables) {
    for (const FatTreeSpec& spec : {full(4), partial()}) {
        Topology built = build_fat_tree(spec);
        IbsimFabric sim(built);
        sim.run_opensm("minhop");
        Topology imported = read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt"));
        evb::test::expect_same_fabric(built, imported);
        // OpenSM gave every port a LID; ibsim reports its links as 4xSDR.
        for (auto h : imported.hosts()) EXPECT_EQ(imported.device(h).link_kinds[0], "4xSDR");
        for (auto s : imported.switches())
            for (auto b : built.switches())
                if (built.device(b).guid == imported.device(s).guid) {
                    EXPECT_EQ(imported.device(s).level, built.device(b).level) << built.device(b).name;
                }
        // What evbench writes from the import is again the same fabric.
        std::ostringstream again;
        write_ibnetdiscover(imported, again);
        std::istringstream in(again.str());
        evb::test::expect_same_fabric(imported, parse_ibnetdiscover(in, "again"));
    }
}

// One fabric and engine per test: each starts its own ibsim and OpenSM and traces host pairs
// with ibtracert (one process per pair), some 15 s; the four ran 62 s as one test. The partial
// fabric's 812 pairs (72 s) are split by source host into shards of their own.
struct TracedFabric {
    const char* name;
    FatTreeSpec spec;
    std::string engine;
    std::size_t shard = 0, shards = 1; // the sources traced: every shards-th host from shard
};

class IbsimTraces : public IbsimTools, public ::testing::WithParamInterface<TracedFabric> {};

TEST_P(IbsimTraces, PathsThroughImportedLftsEqualIbtracert) {
    const TracedFabric& c = GetParam();
    Topology built = build_fat_tree(c.spec);
    IbsimFabric sim(built);
    sim.run_opensm(c.engine);
    Topology t = read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt"));
    Routing r = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, t);
    auto traced = ibtracert_pairs(sim, t, c.shard, c.shards);
    const auto& hosts = t.hosts();
    const std::size_t sources = (hosts.size() - c.shard + c.shards - 1) / c.shards;
    ASSERT_EQ(traced.size(), sources * (hosts.size() - 1)) << c.engine;
    for (std::size_t i = c.shard; i < hosts.size(); i += c.shards)
        for (auto b : hosts) {
            auto a = hosts[i];
            if (a == b) continue;
            Hops ours;
            for (const auto& ch : trace(t, r, a, b)) ours.emplace_back(t.device(ch.device).guid, ib_port(t.device(ch.device), ch.port));
            EXPECT_EQ(ours, (traced[{t.device(a).lid, t.device(b).lid}]))
                << c.engine << ": " << t.device(a).name << " -> " << t.device(b).name;
        }
}

INSTANTIATE_TEST_SUITE_P(Fabrics, IbsimTraces,
                         ::testing::Values(TracedFabric{"K2Ftree", full(2), "ftree"}, TracedFabric{"K2Updn", full(2), "updn"},
                                           TracedFabric{"K2Minhop", full(2), "minhop"},
                                           TracedFabric{"PartialUpdn1of4", partial(), "updn", 0, 4},
                                           TracedFabric{"PartialUpdn2of4", partial(), "updn", 1, 4},
                                           TracedFabric{"PartialUpdn3of4", partial(), "updn", 2, 4},
                                           TracedFabric{"PartialUpdn4of4", partial(), "updn", 3, 4}),
                         [](const auto& i) { return std::string(i.param.name); });

TEST_F(IbsimTools, IbrouteOfEverySwitchEqualsDumpLfts) {
    Topology built = build_fat_tree(partial());
    IbsimFabric sim(built);
    sim.run_opensm("ftree");
    Topology t = read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt"));
    std::vector<std::string> per_switch;
    for (auto s : t.switches())
        per_switch.push_back(sim.dump("ibroute " + std::to_string(t.device(s).lid), "ibroute_" + std::to_string(t.device(s).lid) + ".txt"));
    Routing from_ibroute = read_lft_dumps(per_switch, t);
    Routing from_dump = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, t);
    for (auto s : t.switches())
        for (auto h : t.hosts()) EXPECT_EQ(from_ibroute.lft[s][t.device(h).lid], from_dump.lft[s][t.device(h).lid]);
}

// Paper 003 sec. 4.1: on a full fat tree, ftree makes every linear-shift phase conflict-free; a
// partially populated tree with a swapped cable has conflicts. evbench's own ftree engine, run
// on the imported fabric, must give the same counts as OpenSM's (and the same tables: both place
// the i-th host of a leaf, in port order, on the leaf's i-th up-port).
TEST_F(IbsimTools, OpenSmFtreeConflictsMatchEvbenchFtree) {
    for (const FatTreeSpec& spec : {full(4), partial()}) {
        Topology built = build_fat_tree(spec);
        IbsimFabric sim(built);
        sim.run_opensm("ftree");
        Topology t = read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt"));
        t.order_hosts(order_of_hosts(t, HostOrder::hostname)); // host0, host1, ...: the built rank order
        Routing opensm = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, t);
        Routing ours = route(t, RoutingEngine::ftree);
        auto opensm_flows = phase_flows(t, opensm);
        EXPECT_EQ(opensm_flows, phase_flows(t, ours));
        // Not only the counts: both engines pick the same spine for every destination.
        for (auto sw : t.switches())
            for (auto h : t.hosts())
                EXPECT_EQ(opensm.lft[sw][t.device(h).lid], ours.lft[sw][t.device(h).lid])
                    << t.device(sw).name << " -> " << t.device(h).name;
        auto sum = summarise(analyse_linear_shift(t, opensm));
        if (spec.hosts_per_leaf.empty()) {
            EXPECT_EQ(sum.worst, 1u);
        } else {
            EXPECT_GT(sum.conflicting, 0u);
            EXPECT_GE(sum.worst, 2u);
        }
    }
}

namespace {

// `leaves` leaves of `hosts` hosts, `spines` spines, `cables` parallel cables between every leaf
// and every spine (a 36-port leaf with 18 up-links to 9 spines has 2). Cabled round-robin (leaf
// up-port j to spine j mod spines) or in blocks (a spine's cables on adjacent leaf ports).
Topology parallel_cable_tree(std::uint32_t leaves, std::uint32_t hosts, std::uint32_t spines, std::uint32_t cables, bool blocks = false) {
    Topology t;
    std::vector<std::uint32_t> leaf, spine;
    for (std::uint32_t h = 0; h < leaves * hosts; ++h) t.add_device(DeviceKind::host, "host" + std::to_string(h), 1);
    for (std::uint32_t l = 0; l < leaves; ++l)
        leaf.push_back(t.add_device(DeviceKind::switch_, "leaf" + std::to_string(l), hosts + spines * cables, 0));
    for (std::uint32_t s = 0; s < spines; ++s)
        spine.push_back(t.add_device(DeviceKind::switch_, "spine" + std::to_string(s), leaves * cables, 1));
    for (std::uint32_t h = 0; h < leaves * hosts; ++h) t.connect({t.hosts()[h], 0}, {leaf[h / hosts], h % hosts});
    for (std::uint32_t l = 0; l < leaves; ++l)
        for (std::uint32_t j = 0; j < spines * cables; ++j) {
            const std::uint32_t s = blocks ? j / cables : j % spines, c = blocks ? j % cables : j / spines;
            t.connect({leaf[l], hosts + j}, {spine[s], l * cables + c});
        }
    t.assign_lids();
    return t;
}

struct Routed {
    Topology t;
    Routing opensm, ours;
};

// OpenSM's tables for `built` under `engine`, read back from dump_lfts, and evbench's own on the
// same imported fabric (ranks in host-name order: the built order).
Routed route_both(const Topology& built, const std::string& engine) {
    IbsimFabric sim(built);
    sim.run_opensm(engine);
    Routed r{read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt")), {}, {}};
    r.t.order_hosts(order_of_hosts(r.t, HostOrder::hostname));
    r.opensm = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, r.t);
    r.ours = route(r.t, parse_routing_engine(engine));
    return r;
}

// Every host LID on every switch: the same output port. Reports the count and the first few.
void expect_same_tables(const Routed& r) {
    std::size_t differ = 0, entries = 0;
    std::string first;
    for (auto sw : r.t.switches())
        for (auto h : r.t.hosts()) {
            const auto lid = r.t.device(h).lid;
            ++entries;
            if (r.opensm.lft[sw][lid] == r.ours.lft[sw][lid]) continue;
            if (++differ <= 5)
                first += "\n  " + r.t.device(sw).name + " -> " + r.t.device(h).name + ": OpenSM port " +
                    std::to_string(r.opensm.lft[sw][lid] + 1) + ", evbench port " + std::to_string(r.ours.lft[sw][lid] + 1);
        }
    EXPECT_EQ(differ, 0u) << differ << " of " << entries << " LFT entries differ:" << first;
}

} // namespace

// Issue 18 part 2: OpenSM's ftree on 3-level trees, full and partial (a sized tree whose last pod
// is not full), and evbench's ftree give the same tables entry for entry.
TEST_F(IbsimTools, OpenSmFtreeEqualsEvbenchFtreeOnThreeLevelTrees) {
    FatTreeSpec full3 = full(2);
    full3.levels = 3;
    for (const FatTreeSpec& spec : {full3, sized_fat_tree(40, 8, 3)}) {
        Routed r = route_both(build_fat_tree(spec), "ftree");
        SCOPED_TRACE(std::to_string(r.t.hosts().size()) + " hosts, " + std::to_string(r.t.switches().size()) + " switches");
        expect_same_tables(r);
        EXPECT_EQ(summarise(analyse_linear_shift(r.t, r.opensm)).worst, summarise(analyse_linear_shift(r.t, r.ours)).worst);
    }
}

// Issue 18 part 3: with two or more cables between a leaf and a spine, OpenSM's ftree spreads
// routes over every cable; evbench's must give the same tables, and so the same conflicts.
TEST_F(IbsimTools, OpenSmFtreeEqualsEvbenchFtreeWithParallelCables) {
    struct Case {
        std::uint32_t leaves, hosts, spines, cables;
        bool blocks;
    } cases[] = {{3, 3, 2, 2, false}, {3, 3, 2, 2, true}, {4, 8, 4, 2, false}, {6, 6, 2, 3, true}};
    for (const auto& c : cases) {
        Routed r = route_both(parallel_cable_tree(c.leaves, c.hosts, c.spines, c.cables, c.blocks), "ftree");
        SCOPED_TRACE(std::to_string(c.leaves) + " leaves of " + std::to_string(c.hosts) + " hosts, " + std::to_string(c.spines) +
                     " spines x " + std::to_string(c.cables) + " cables" + (c.blocks ? " in blocks" : " round-robin"));
        expect_same_tables(r);
        auto opensm = summarise(analyse_linear_shift(r.t, r.opensm)), ours = summarise(analyse_linear_shift(r.t, r.ours));
        EXPECT_EQ(opensm.conflicting, ours.conflicting);
        EXPECT_EQ(opensm.worst, ours.worst);
    }
    // What `--spines` generates: 4 leaves of 6 hosts, 3 spines with 2 cables from each leaf.
    FatTreeSpec fewer;
    fewer.k = 6;
    fewer.leaves = 4;
    fewer.spines = 3;
    Routed r = route_both(build_fat_tree(fewer), "ftree");
    SCOPED_TRACE("--k 6 --leaves 4 --spines 3");
    expect_same_tables(r);
    EXPECT_EQ(summarise(analyse_linear_shift(r.t, r.ours)).worst, 1u);
}

// minhop and up*/down* on parallel cables: evbench's tables equal OpenSM's (both balance routes
// over the ports of equal hop count, destinations in LID order), so the conflicts are the same.
TEST_F(IbsimTools, MinhopAndUpdnOnParallelCablesEqualOpenSm) {
    for (const std::string engine : {"minhop", "updn"}) {
        Routed r = route_both(parallel_cable_tree(4, 8, 4, 2), engine);
        auto opensm = summarise(analyse_linear_shift(r.t, r.opensm)), ours = summarise(analyse_linear_shift(r.t, r.ours));
        SCOPED_TRACE(engine);
        expect_same_tables(r);
        EXPECT_EQ(ours.worst, opensm.worst);
        EXPECT_EQ(ours.conflicting, opensm.conflicting);
    }
}

namespace {

struct GeneratedFabric {
    std::string name;
    FatTreeSpec spec;
};

// 2- and 3-level trees as a site has them: full, with hosts missing on the first or a later leaf of
// a pod, with swapped cables, and both.
std::vector<GeneratedFabric> generated_fabrics() {
    std::vector<GeneratedFabric> out;
    auto tree = [](std::uint32_t k, std::uint32_t levels, std::vector<std::uint32_t> missing = {},
                   std::vector<std::pair<std::uint32_t, std::uint32_t>> swapped = {}) {
        FatTreeSpec s = full(k);
        s.levels = levels;
        s.missing_hosts = std::move(missing);
        s.swapped_hosts = std::move(swapped);
        return s;
    };
    out.push_back({"k2 L3 full", tree(2, 3)});
    out.push_back({"k2 L3 no slot 4 (pod 1, first leaf)", tree(2, 3, {4})});
    out.push_back({"k2 L3 no slot 6 (pod 1, second leaf)", tree(2, 3, {6})});
    out.push_back({"k2 L3 no slot 0", tree(2, 3, {0})});
    out.push_back({"k2 L3 no slots 1 and 13", tree(2, 3, {1, 13})});
    out.push_back({"k2 L3 swapped 1:6", tree(2, 3, {}, {{1, 6}})});
    out.push_back({"k2 L3 no slot 4, swapped 0:9", tree(2, 3, {4}, {{0, 9}})});
    out.push_back({"k4 L3 full", tree(4, 3)});
    out.push_back({"k4 L3 no slot 0", tree(4, 3, {0})});
    out.push_back({"k4 L3 no slot 16 (pod 1, first leaf)", tree(4, 3, {16})});
    out.push_back({"k4 L3 no slot 21 (pod 1, second leaf)", tree(4, 3, {21})});
    out.push_back({"k4 L3 no slots 5, 38, 100", tree(4, 3, {5, 38, 100})});
    out.push_back({"k4 L3 swapped 3:70, 12:13", tree(4, 3, {}, {{3, 70}, {12, 13}})});
    out.push_back({"k4 L3 no slot 17, swapped 2:33", tree(4, 3, {17}, {{2, 33}})});
    out.push_back({"k4 L2 full", tree(4, 2)});
    out.push_back({"k4 L2 no slot 0", tree(4, 2, {0})});
    out.push_back({"k4 L2 no slot 5", tree(4, 2, {5})});
    out.push_back({"k4 L2 no slots 1, 9, 30, swapped 2:17", tree(4, 2, {1, 9, 30}, {{2, 17}})});
    out.push_back({"k6 L2 no slots 7, 8, swapped 0:35", tree(6, 2, {7, 8}, {{0, 35}})});
    out.push_back({"k4 L2 leaves of 4, 3, 2 hosts", partial()});
    FatTreeSpec few = full(6);
    few.leaves = 4;
    few.spines = 3;
    few.missing_hosts = {0, 7};
    out.push_back({"k6 L2 4 leaves, 3 spines (parallel cables), no slots 0 and 7", few});
    return out;
}

} // namespace

// Issue 58: evbench's ftree equals OpenSM's entry for entry on every generated fabric.
TEST_F(IbsimTools, OpenSmFtreeEqualsEvbenchFtreeOnGeneratedFabrics) {
    for (const auto& f : generated_fabrics()) {
        SCOPED_TRACE(f.name);
        Routed r = route_both(build_fat_tree(f.spec), "ftree");
        expect_same_tables(r);
    }
}

// Issue 58: minhop and up*/down* on the same trees. OpenSM balances destinations leaf by leaf,
// the leaves with the most hosts first, each leaf's hosts in port order.
TEST_F(IbsimTools, OpenSmMinhopAndUpdnEqualEvbenchsOnGeneratedFabrics) {
    for (const std::string engine : {"minhop", "updn"})
        for (const auto& f : generated_fabrics()) {
            SCOPED_TRACE(engine + ": " + f.name);
            Routed r = route_both(build_fat_tree(f.spec), engine);
            expect_same_tables(r);
        }
}
