// The importers against the real tools: evbench writes a fat tree as an ibsim net file, ibsim
// serves it, OpenSM routes it (ftree with the spines as roots, updn, minhop), ibnetdiscover,
// ibroute, dump_lfts and ibtracert dump it, and evbench reads the dumps back.
#include "fabric_expectations.hpp"
#include "ibsim_fabric.hpp"
#include "conflict_analyser.hpp"
#include "fat_tree.hpp"
#include "host_order.hpp"
#include "ibnetdiscover_format.hpp"
#include "lft_dump_format.hpp"

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
FatTreeSpec partial() {   // leaves with 3 and 2 hosts, a missing host, a swapped cable
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

std::map<std::pair<std::uint32_t, std::uint32_t>, Hops> ibtracert_all_pairs(const IbsimFabric& sim, const Topology& t) {
    std::string script;
    for (auto a : t.hosts())
        for (auto b : t.hosts())
            if (a != b) script += "echo '== " + std::to_string(t.device(a).lid) + " " + std::to_string(t.device(b).lid) + "'; ibtracert " +
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

TEST_F(IbsimTools, PathsThroughImportedLftsEqualIbtracert) {
    struct Case {
        FatTreeSpec spec;
        std::string engine;
    } cases[] = {{full(2), "ftree"}, {full(2), "updn"}, {full(2), "minhop"}, {partial(), "updn"}};
    for (const auto& c : cases) {
        Topology built = build_fat_tree(c.spec);
        IbsimFabric sim(built);
        sim.run_opensm(c.engine);
        Topology t = read_ibnetdiscover(sim.dump("ibnetdiscover", "disc.txt"));
        Routing r = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, t);
        auto traced = ibtracert_all_pairs(sim, t);
        ASSERT_EQ(traced.size(), t.hosts().size() * (t.hosts().size() - 1)) << c.engine;
        for (auto a : t.hosts())
            for (auto b : t.hosts()) {
                if (a == b) continue;
                Hops ours;
                for (const auto& ch : trace(t, r, a, b)) ours.emplace_back(t.device(ch.device).guid, ib_port(t.device(ch.device), ch.port));
                EXPECT_EQ(ours, (traced[{t.device(a).lid, t.device(b).lid}])) << c.engine << ": " << t.device(a).name << " -> " << t.device(b).name;
            }
    }
}

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
        t.order_hosts(order_of_hosts(t, HostOrder::hostname));   // host0, host1, ...: the built rank order
        Routing opensm = read_lft_dumps({sim.dump("dump_lfts", "lfts.txt")}, t);
        Routing ours = route(t, RoutingEngine::ftree);
        auto opensm_flows = phase_flows(t, opensm);
        EXPECT_EQ(opensm_flows, phase_flows(t, ours));
        // Not only the counts: both engines pick the same spine for every destination.
        for (auto sw : t.switches())
            for (auto h : t.hosts()) EXPECT_EQ(opensm.lft[sw][t.device(h).lid], ours.lft[sw][t.device(h).lid]) << t.device(sw).name << " -> " << t.device(h).name;
        auto sum = summarise(analyse_linear_shift(t, opensm));
        if (spec.hosts_per_leaf.empty()) {
            EXPECT_EQ(sum.worst, 1u);
        } else {
            EXPECT_GT(sum.conflicting, 0u);
            EXPECT_GE(sum.worst, 2u);
        }
    }
}
