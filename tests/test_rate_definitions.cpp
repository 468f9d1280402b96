// One definition of every rate (docs/output.md): in_Gbps and out_Gbps are bytes that crossed the
// network, built_Gbps every fragment byte the builders received, their own node's included; real
// and simulated runs report both, and no network rate exceeds the links' b_eff.
#include "run_command.hpp"

#include <gtest/gtest.h>

using namespace evb::test;

namespace {

double field(const nlohmann::json& j, const char* key) { return j.at(key).get<double>(); }

} // namespace

// Folded, 4 nodes: each BU gets one fragment of 4 from its own node's RU, which never crosses
// the network, so in_Gbps is 3/4 of built_Gbps on every node, and the raw counts say why.
TEST(RateDefinitions, OnARealTransportInGbpsLeavesEachNodesOwnFragmentOut) {
    std::string report;
    auto doc = run_evbench_json("--transport tcp --launch-local 4 --events 300 --fragment-size 16KiB", "rates_tcp_folded", report);
    ASSERT_FALSE(doc.is_null()) << report;
    const auto& r = doc["results"];
    for (const auto& n : r["nodes"]) {
        const auto& raw = n["raw"];
        const auto in = raw["bytes_in"].get<std::uint64_t>(), in_local = raw["bytes_in_local"].get<std::uint64_t>();
        EXPECT_GT(in_local, 0u) << n.dump();
        EXPECT_EQ(in_local * 4, in) << "every event gives each BU one fragment of each RU, one of them its own: " << n.dump();
        EXPECT_EQ(raw["bytes_out_local"], raw["bytes_in_local"]) << "what the node's RU wrote to its own BU: " << n.dump();
        EXPECT_NEAR(field(n, "in_gbps") / field(n, "built_gbps"), 0.75, 1e-9) << n.dump();
    }
    const auto& sys = r["system"];
    EXPECT_NEAR(field(sys, "per_node_in_gbps") / field(sys, "per_node_built_gbps"), 0.75, 1e-9) << sys.dump();
    EXPECT_NEAR(field(sys, "in_gbps") / field(sys, "built_gbps"), 0.75, 1e-9) << sys.dump();
    // The table says both.
    auto table = run_command(evbench_binary() + " --transport local --nodes 4 --events 50");
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("in_Gbps  out_Gbps built_Gbps"), std::string::npos) << table.out;
}

// Split: readout nodes and builder nodes are different nodes, so every byte crosses the network.
TEST(RateDefinitions, SplitNodesSendEveryByteOverTheNetwork) {
    auto doc = run_evbench_json("--transport tcp --launch-local 4 --layout split --readout-nodes 2 --builder-nodes 2 --events 200",
                                "rates_tcp_split");
    ASSERT_FALSE(doc.is_null());
    for (const auto& n : doc["results"]["nodes"]) {
        EXPECT_EQ(n["raw"]["bytes_in_local"], 0) << n.dump();
        EXPECT_EQ(n["raw"]["bytes_out_local"], 0) << n.dump();
        EXPECT_DOUBLE_EQ(field(n, "in_gbps"), field(n, "built_gbps")) << n.dump();
    }
}

// The simulator: in_Gbps is the payload that crossed each host's link, per packet, so even a
// short window (every credit begun at once, fragments completing together) stays below b_eff;
// built_Gbps counts the units' whole fragments, loopback included, over the events' window.
TEST(RateDefinitions, OnTheSimulatorNoNetworkRateExceedsBEffAndBuiltCountsTheWholeFragments) {
    auto doc = run_evbench_json("--transport sim --nodes 8 --credits 16 --fragment-size 256KiB --duration 12ms", "rates_sim");
    ASSERT_FALSE(doc.is_null());
    const auto& r = doc["results"];
    const double b_eff = r["network"]["effective_gbps"].get<double>();
    const double window = r["window_s"].get<double>();
    ASSERT_GT(r["system"]["events_built"].get<std::uint64_t>(), 0u);
    for (const auto& n : r["nodes"]) {
        EXPECT_LE(field(n, "in_gbps"), b_eff) << n.dump();
        EXPECT_LE(field(n, "out_gbps"), b_eff) << n.dump();
        EXPECT_NEAR(field(n, "built_gbps"), n["raw"]["bytes_in"].get<double>() * 8 / window / 1e9, 1e-9 * field(n, "built_gbps"));
        EXPECT_GT(n["raw"]["bytes_in_local"].get<std::uint64_t>(), 0u) << "the units count their own node's fragment: " << n.dump();
    }
}

// The shift scan's shift 0 is each node to itself: marked, and no network row above b_eff.
TEST(RateDefinitions, TheShiftScansShiftZeroIsNoNetworkRate) {
    auto doc = run_evbench_json("--transport sim --benchmark shift-scan --nodes 4 --link-rate 8 --fragment-size 64KiB --phase-time 2ms",
                                "rates_sim_scan");
    ASSERT_FALSE(doc.is_null());
    const double b_eff = doc["results"]["network"]["effective_gbps"].get<double>();
    const auto& phases = doc["results"]["phases"];
    ASSERT_EQ(phases.size(), 4u);
    EXPECT_FALSE(phases[0]["over_network"].get<bool>());
    EXPECT_GT(field(phases[0], "max_gbps"), b_eff) << "the adapter's loopback runs at the signalling rate: " << phases[0].dump();
    for (std::size_t s = 1; s < phases.size(); ++s) {
        EXPECT_TRUE(phases[s]["over_network"].get<bool>());
        EXPECT_LE(field(phases[s], "max_gbps"), b_eff) << phases[s].dump();
    }
    auto table = run_command(evbench_binary() + " --transport sim --benchmark shift-scan --nodes 2 --fragment-size 64KiB --phase-time 1ms");
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_NE(table.out.find("\n    0*"), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("# * shift 0 is each node to itself"), std::string::npos) << table.out;
}
