// configs/: the seed setups as runnable configurations (issue 18 part 7). Each is run through the
// real binary as a user would (`evbench --config FILE`), shortened with --duration, and checked
// against what its comment promises: the fabric, the settings, rates within b_eff, events built.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace evb::test;

namespace {

nlohmann::json run_config(const std::string& file, const std::string& overrides) {
    return run_evbench_json("--config " + std::string(EVBENCH_SOURCE_DIR) + "/configs/" + file + " " + overrides, file);
}

} // namespace

// Thesis fig. 3.17 / 3.18: 512 nodes on the k = 16 tree (32 leaves + 16 spines), 16 credits, 1
// parallel send, 1 MiB; the first event needs c N f / b_eff = 0.692 s simulated.
TEST(Configs, Lhcb512OnTheK16Tree) {
    auto doc = run_config("lhcb-512-k16.toml", "--duration 200us");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["config"]["transport"], "sim");
    EXPECT_EQ(doc["config"]["nodes"], 512);
    EXPECT_EQ(doc["config"]["credits"], 16);
    EXPECT_EQ(doc["config"]["parallel"], 1);
    EXPECT_EQ(doc["config"]["fragment_size"], 1u << 20);
    const auto& network = doc["results"]["network"];
    EXPECT_EQ(network["hosts"], 512);
    EXPECT_EQ(network["switches"], 48);
    EXPECT_NEAR(network["first_event_estimate_s"].get<double>(),
                16.0 * 512 * (1 << 20) * 8 / (network["effective_gbps"].get<double>() * 1e9), 1e-3);
    EXPECT_GT(doc["results"]["system"]["per_node_in_gbps"].get<double>(), 0.0);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}

// Paper 003 table 2's best settings on 64 nodes: 2 credits, 8 parallel sends, 512 KB. 12 ms is
// enough for the first events (c N f / b_eff = 5.3 ms); every one built is verified.
TEST(Configs, Daqpipe64BuildsEventsWithTheBestSettingsOfPaper003) {
    auto doc = run_config("daqpipe-64-sim.toml", "--duration 12ms");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["config"]["nodes"], 64);
    EXPECT_EQ(doc["config"]["credits"], 2);
    EXPECT_EQ(doc["config"]["parallel"], 8);
    EXPECT_EQ(doc["config"]["fragment_size"], 512000);
    const auto& sys = doc["results"]["system"];
    EXPECT_GT(sys["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(sys["errors"], 0);
    EXPECT_FALSE(sys["latency_us"].is_null());
}

// The next upgrade: 4096 nodes on the 3-level tree sized from 36-port switches (228 leaves of 18
// hosts, 234 aggregation switches, 324 cores).
TEST(Configs, NextUpgrade4096OnAThreeLevelTreeOf36PortSwitches) {
    auto doc = run_config("next-upgrade-4096.toml", "--duration 10us");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["config"]["nodes"], 4096);
    EXPECT_EQ(doc["config"]["credits"], 16);
    const auto& network = doc["results"]["network"];
    EXPECT_EQ(network["hosts"], 4104);
    EXPECT_EQ(network["switches"], 228 + 234 + 324);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}
