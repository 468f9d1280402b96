// Reading and writing fabrics in the formats of ibnetdiscover and ibroute / dump_lfts, host
// orders and hostfiles, and the one-line errors for broken dumps. The same formats against the
// real tools (ibsim, OpenSM, infiniband-diags) are in test_netsim_ibsim.cpp.
#include "netsim/fabric/conflict_analyser.hpp"
#include "netsim/fabric/dump_error.hpp"
#include "netsim/fabric/fat_tree.hpp"
#include "netsim/fabric/host_order.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/lft_dump_format.hpp"
#include "fabric_expectations.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace evb::netsim;
using evb::test::expect_same_fabric;
using evb::test::temp_path;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    std::string path = temp_path(name);
    std::ofstream(path) << text;
    return path;
}

Topology parse(const std::string& text) {
    std::istringstream in(text);
    return parse_ibnetdiscover(in, "fabric.txt");
}

std::string error_of(const std::string& text) {
    try {
        parse(text);
    } catch (const DumpError& e) {
        return e.what();
    }
    return "no error";
}

std::uint32_t by_name(const Topology& t, const std::string& name) {
    for (std::uint32_t d = 0; d < t.devices().size(); ++d)
        if (t.device(d).name == name) return d;
    throw std::runtime_error("no device " + name);
}

// Two leaves, one spine, three hosts; node02 has a dual-port adapter with port 2 cabled. As
// ibnetdiscover prints it on a real EDR cluster.
const char* small_fabric = R"(#
# Topology file: generated on Mon Nov  2 10:00:00 2026
#
vendid=0x2c9
devid=0xcf08
sysimgguid=0x7cfe900300aa0001
switchguid=0x7cfe900300aa0001(7cfe900300aa0001)
Switch	36 "S-7cfe900300aa0001"		# "MF0;leaf-a:MSB7700/U1" enhanced port 0 lid 10 lmc 0
[1]	"H-0002c90300bb0001"[1](2c90300bb0002) 		# "node01 HCA-1" lid 1 4xEDR
[2]	"H-0002c90300bb0011"[2](2c90300bb0013) 		# "node02 HCA-1" lid 2 4xEDR
[35]	"S-7cfe900300aa0003"[1]		# "MF0;spine:MSB7700/U1" lid 12 4xEDR

vendid=0x2c9
devid=0xcf08
switchguid=0x7cfe900300aa0002(7cfe900300aa0002)
Switch	36 "S-7cfe900300aa0002"		# "MF0;leaf-b:MSB7700/U1" enhanced port 0 lid 11 lmc 0
[3]	"H-0002c90300bb0021"[1](2c90300bb0022) 		# "node10 HCA-1" lid 3 4xEDR
[36]	"S-7cfe900300aa0003"[2]		# "MF0;spine:MSB7700/U1" lid 12 4xEDR

switchguid=0x7cfe900300aa0003(7cfe900300aa0003)
Switch	36 "S-7cfe900300aa0003"		# "MF0;spine:MSB7700/U1" enhanced port 0 lid 12 lmc 0
[1]	"S-7cfe900300aa0001"[35]		# "MF0;leaf-a:MSB7700/U1" lid 10 4xEDR
[2]	"S-7cfe900300aa0002"[36]		# "MF0;leaf-b:MSB7700/U1" lid 11 4xEDR

vendid=0x2c9
devid=0x1017
caguid=0x2c90300bb0021
Ca	1 "H-0002c90300bb0021"		# "node10 HCA-1"
[1](2c90300bb0022) 	"S-7cfe900300aa0002"[3]		# lid 3 lmc 0 "MF0;leaf-b:MSB7700/U1" lid 11 4xEDR

caguid=0x2c90300bb0011
Ca	2 "H-0002c90300bb0011"		# "node02 HCA-1"
[2](2c90300bb0013) 	"S-7cfe900300aa0001"[2]		# lid 2 lmc 0 "MF0;leaf-a:MSB7700/U1" lid 10 4xEDR

caguid=0x2c90300bb0001
Ca	1 "H-0002c90300bb0001"		# "node01 HCA-1"
[1](2c90300bb0002) 	"S-7cfe900300aa0001"[1]		# lid 1 lmc 0 "MF0;leaf-a:MSB7700/U1" lid 10 4xEDR
)";

FatTreeSpec imperfect_tree() {
    FatTreeSpec s;
    s.k = 4;
    s.hosts_per_leaf = {4, 4, 3, 4, 2, 4, 4, 4};
    s.missing_hosts = {1};
    s.swapped_hosts = {{1, 6}};
    return s;
}

} // namespace

TEST(IbnetdiscoverFormat, ReadsSwitchesAdaptersLidsAndLinkKinds) {
    Topology t = parse(small_fabric);
    EXPECT_EQ(t.switches().size(), 3u);
    ASSERT_EQ(t.hosts().size(), 3u);
    const Device& leaf_a = t.device(by_name(t, "MF0;leaf-a:MSB7700/U1"));
    EXPECT_EQ(leaf_a.guid, 0x7cfe900300aa0001u);
    EXPECT_EQ(leaf_a.lid, 10u);
    EXPECT_EQ(leaf_a.ports.size(), 36u);
    EXPECT_EQ(leaf_a.level, 0u);
    EXPECT_EQ(t.device(by_name(t, "MF0;spine:MSB7700/U1")).level, 1u);
    const std::uint32_t node02 = by_name(t, "node02 HCA-1");
    EXPECT_EQ(t.device(node02).lid, 2u);
    EXPECT_EQ(t.device(node02).adapter_port, 2u);
    EXPECT_EQ(t.device(node02).adapter_ports, 2u);
    EXPECT_EQ(hostname_of(t.device(node02)), "node02");
    // IB port 2 of leaf-a is index 1; the cable carries the kind from the dump.
    EXPECT_EQ(t.peer({by_name(t, "MF0;leaf-a:MSB7700/U1"), 1})->device, node02);
    EXPECT_EQ(leaf_a.link_kinds[34], "4xEDR");
    EXPECT_EQ(t.peer({by_name(t, "MF0;leaf-a:MSB7700/U1"), 34})->port, 0u); // spine port 1
    EXPECT_EQ(t.device_by_lid(3), by_name(t, "node10 HCA-1"));
    // The file's node order is the given order; hostname order is natural (node2 before node10).
    std::vector<std::string> names;
    for (auto h : order_of_hosts(t, HostOrder::hostname)) names.push_back(t.device(h).name);
    EXPECT_EQ(names, (std::vector<std::string>{"node01 HCA-1", "node02 HCA-1", "node10 HCA-1"}));
    names.clear();
    for (auto h : order_of_hosts(t, HostOrder::lid)) names.push_back(hostname_of(t.device(h)));
    EXPECT_EQ(names, (std::vector<std::string>{"node01", "node02", "node10"}));
}

TEST(IbnetdiscoverFormat, RoundTripKeepsEveryNodePortAndCable) {
    Topology built = build_fat_tree(imperfect_tree());
    std::ostringstream text;
    write_ibnetdiscover(built, text);
    Topology back = parse(text.str());
    expect_same_fabric(built, back);
    for (auto h : built.hosts()) EXPECT_EQ(back.device(*back.device_by_lid(built.device(h).lid)).guid, built.device(h).guid);
    for (auto s : built.switches()) EXPECT_EQ(back.device(*back.device_by_lid(built.device(s).lid)).level, built.device(s).level);
}

TEST(IbnetdiscoverFormat, IbsimNetFileWithoutLidsGetsLidsAssigned) {
    Topology t = parse("Switch 4 \"sw\"\n[1] \"a\"[1]\n[2] \"b\"[1]\n\nHca 1 \"a\"\n[1] \"sw\"[1]\n\nHca 1 \"b\"\n[1] \"sw\"[2]\n");
    ASSERT_EQ(t.hosts().size(), 2u);
    EXPECT_EQ(t.device(t.hosts()[0]).lid, 1u);
    EXPECT_EQ(t.device(t.hosts()[1]).lid, 2u);
    EXPECT_EQ(t.max_lid(), 3u);
}

TEST(IbnetdiscoverFormat, BrokenDumpsGetOneLineWithFileLineAndReason) {
    const std::string sw = "Switch 4 \"S-01\" # \"sw\" base port 0 lid 3 lmc 0\n";
    const std::string ca_a = "Ca 1 \"H-0a\" # \"a\"\n[1](b) \"S-01\"[1] # lid 1 lmc 0 \"sw\" lid 3 4xEDR\n";
    const std::string ca_b = "Ca 1 \"H-0b\" # \"b\"\n[1](c) \"S-01\"[2] # lid 2 lmc 0 \"sw\" lid 3 4xEDR\n";
    const std::string links = "[1] \"H-0a\"[1] # \"a\" lid 1 4xEDR\n[2] \"H-0b\"[1] # \"b\" lid 2 4xEDR\n";
    // The whole file parses as a reference.
    EXPECT_EQ(parse(sw + links + ca_a + ca_b).hosts().size(), 2u);
    struct Case {
        std::string text, expected;
    } cases[] = {
        {sw + links, "fabric.txt:2: port 1 of \"S-01\" is cabled to \"H-0a\", which the file never defines (truncated dump?)"},
        {sw + "[5] \"H-0a\"[1]\n" + ca_a, "fabric.txt:2: port 5 of \"S-01\", which has ports 1..4"},
        {sw + links + ca_a + ca_b + ca_a, "fabric.txt:8: node \"H-0a\" is defined twice (first on line 4)"},
        {sw + "[1] H-0a[1]\n", "fabric.txt:2: not an ibnetdiscover line: '[1] H-0a[1]'"},
        {"Rt 2 \"R-01\"\n", "fabric.txt:1: routers are not supported"},
        {sw + "[1] \"H-0a\"[1]\n[2] \"H-0b\"[1]\n" + ca_a + "Ca 1 \"H-0b\"\n[1] \"S-01\"[3]\n",
         "fabric.txt:3: \"S-01\"[2] is cabled to \"H-0b\"[1], but that port does not list it back"},
        {"[1] \"H-0a\"[1]\n", "fabric.txt:1: a port line before any Switch or Ca line"},
        {"", "fabric.txt: no Switch or Ca in the file (empty or not an ibnetdiscover dump)"},
        {sw + "[1] \"H-0a\"[1]\n[2] \"H-0a\"[2]\nCa 2 \"H-0a\"\n[1] \"S-01\"[1]\n[2] \"S-01\"[2]\n",
         "fabric.txt:4: adapter \"H-0a\" has 2 cabled ports; evbench simulates one port per host"},
        {sw + links + ca_a + "Ca 1 \"H-0b\" # \"b\"\n[1](c) \"S-01\"[2] # lid 1 lmc 0 \"sw\" lid 3\n", "LID 1 is used by both a and b"},
        {sw + links + ca_a + "Ca 1 \"H-0b\" # \"b\"\n[1](c) \"S-01\"[2]\n",
         "fabric.txt:6: \"H-0b\" has no LID while earlier nodes have one"},
        // Numbers wider than their field are refused, not cut to it (4294967297 would be LID or port 1).
        {sw + links + ca_a + "Ca 1 \"H-0b\" # \"b\"\n[1](c) \"S-01\"[2] # lid 4294967298 lmc 0 \"sw\" lid 3 4xEDR\n",
         "fabric.txt:7: number out of range in"},
        {"Switch 4 \"S-01\" # \"sw\" base port 0 lid 4294967299 lmc 0\n", "fabric.txt:1: number out of range in"},
        {sw + "[4294967297] \"H-0a\"[1]\n", "fabric.txt:2: number out of range in"},
        {sw + "[1] \"H-0a\"[4294967297]\n", "fabric.txt:2: number out of range in"},
        {"Switch 4294967300 \"S-01\"\n", "fabric.txt:1: number out of range in"},
        // Within 32 bits, the field's own check names what is wrong.
        {"Switch 300 \"S-01\"\n", "fabric.txt:1: a node has 1..254 ports (got 300)"},
        {sw + "[300] \"H-0a\"[1]\n", "fabric.txt:2: port 300 of \"S-01\", which has ports 1..4"},
        {sw + links + ca_a + "Ca 1 \"H-0b\" # \"b\"\n[1](c) \"S-01\"[2] # lid 70000 lmc 0 \"sw\" lid 3 4xEDR\n",
         "no valid unicast LID (70000)"},
    };
    for (const auto& c : cases) EXPECT_NE(error_of(c.text).find(c.expected), std::string::npos) << error_of(c.text) << "\n---\n" << c.text;
}

TEST(LftDumpFormat, RoundTripReproducesEveryTable) {
    for (auto engine : {RoutingEngine::ftree, RoutingEngine::minhop, RoutingEngine::updn, RoutingEngine::random}) {
        Topology t = build_fat_tree(imperfect_tree());
        Routing r = route(t, engine, 7);
        std::ostringstream text;
        write_lft_dump(t, r, text);
        Routing back = read_lft_dumps({write_temp("lfts.txt", text.str())}, t);
        for (auto s : t.switches())
            for (auto h : t.hosts()) EXPECT_EQ(back.lft[s][t.device(h).lid], r.lft[s][t.device(h).lid]) << to_string(engine);
        EXPECT_EQ(summarise(analyse_linear_shift(t, back)).conflicting, summarise(analyse_linear_shift(t, r)).conflicting);
    }
}

TEST(LftDumpFormat, BrokenTablesNameFileLineAndReason) {
    // A 2-host, 1-switch fabric: hosts LID 1, 2 on ports 1, 2; the switch is LID 3.
    FatTreeSpec spec;
    spec.k = 1;
    spec.leaves = 2;
    Topology t = build_fat_tree(spec); // 2 leaves, 1 spine, 2 hosts
    Routing r = route(t, RoutingEngine::ftree);
    std::ostringstream text;
    write_lft_dump(t, r, text);
    const std::string good = text.str();
    auto error_for = [&](const std::string& dump) {
        try {
            read_lft_dumps({write_temp("bad.lfts", dump)}, t);
        } catch (const DumpError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    ASSERT_EQ(error_for(good), "no error");
    // leaf0 (LID 3) sends host1 (LID 2) up port 2 to spine; replace entries to break it.
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        auto at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return s.replace(at, from.size(), to);
    };
    const std::string first_line = good.substr(0, good.find('\n'));
    EXPECT_NE(
        error_for(replace("0x0002 002", "0x0002 007")).find("bad.lfts:5: LFT of leaf0 sends LID 2 to port 7; the switch has ports 1..2"),
        std::string::npos)
        << error_for(replace("0x0002 002", "0x0002 007"));
    // leaf0 -> itself (port 0) for a host is refused; the spine sending LID 2 back to leaf0 is a loop.
    EXPECT_NE(error_for(replace("0x0002 002", "0x0002 000")).find("to port 0, the switch itself"), std::string::npos);
    std::string spine_block = good.substr(good.find("(spine0)"));
    std::string looped = good;
    looped.replace(looped.find("0x0002 002", looped.find("(spine0)")), 10, "0x0002 001");
    EXPECT_NE(error_for(looped).find("routing loop through"), std::string::npos) << error_for(looped);
    EXPECT_NE(error_for(looped).find("bad.lfts:"), std::string::npos) << error_for(looped);
    // An entry removed, with the count fixed: unreachable, named at the switch's block.
    std::string unreachable = good;
    unreachable.erase(unreachable.find("0x0002 002"),
                      unreachable.find('\n', unreachable.find("0x0002 002")) - unreachable.find("0x0002 002") + 1);
    unreachable.replace(unreachable.find("3 valid lids dumped"), 1, "2");
    EXPECT_NE(error_for(unreachable).find("bad.lfts:1: host0 -> host1: unreachable, no LFT entry on leaf0"), std::string::npos)
        << error_for(unreachable);
    // Truncated: the last block loses its trailer, or a count disagrees.
    EXPECT_NE(error_for(good.substr(0, good.rfind("valid lids dumped") - 2)).find("ends without 'valid lids dumped' (truncated?)"),
              std::string::npos);
    EXPECT_NE(error_for(replace("3 valid lids dumped", "4 valid lids dumped")).find("says 4 lids but lists 3 (truncated?)"),
              std::string::npos);
    EXPECT_NE(error_for(replace(first_line, "Unicast lids [0x0-0x5] of switch Lid 3 guid 0x0000000000000bad (stranger):"))
                  .find("bad.lfts:1: switch guid 0x0000000000000bad (stranger) is not in the topology"),
              std::string::npos);
    EXPECT_NE(error_for(good.substr(0, good.find("Unicast", 10))).find("no table for switch"), std::string::npos);
    EXPECT_NE(error_for("garbage\n").find("bad.lfts:1: not an ibroute/dump_lfts line: 'garbage'"), std::string::npos);
    // A LID beyond 16 bits whose low 32 bits name a real LID (fuzz finding: it indexed the table
    // with the full value and crashed), and a port beyond 8 bits, are refused with their line.
    EXPECT_NE(error_for(replace("0x0002 002", "0x100000002 002")).find("bad.lfts:5: number out of range in '0x100000002 002"),
              std::string::npos)
        << error_for(replace("0x0002 002", "0x100000002 002"));
    EXPECT_NE(error_for(replace("0x0002 002", "0x0002 4294967298")).find("bad.lfts:5: number out of range in"), std::string::npos)
        << error_for(replace("0x0002 002", "0x0002 4294967298"));
}

TEST(HostOrder, NaturalOrderAndCablingOrderRestoresAConflictFreeShift) {
    EXPECT_TRUE(natural_less("node2", "node10"));
    EXPECT_TRUE(natural_less("node02", "node10"));
    EXPECT_FALSE(natural_less("node10", "node9"));
    EXPECT_TRUE(natural_less("a", "b"));
    EXPECT_TRUE(natural_less("node1", "node1a"));
    FatTreeSpec spec;
    spec.k = 4;
    spec.swapped_hosts = {{1, 6}, {3, 12}};
    Topology t = build_fat_tree(spec);
    Routing r = route(t, RoutingEngine::ftree);
    EXPECT_GT(summarise(analyse_linear_shift(t, r)).conflicting, 0u);
    t.order_hosts(order_of_hosts(t, HostOrder::cabling));
    EXPECT_EQ(summarise(analyse_linear_shift(t, r)).worst, 1u);
    std::ostringstream hostfile;
    write_hostfile(t, hostfile);
    EXPECT_EQ(hostfile.str().substr(0, 25), "host0\nhost6\nhost2\nhost12\n");
    EXPECT_THROW(t.order_hosts({t.hosts()[0]}), std::invalid_argument);
}
