// The time-window linear shifter (thesis 3.2.3, --scheduling a2a): on the simulator each RU's
// rate is eq. 3.2's b_eff T_send / (T_send + T_idle) within 1% for windows that hold a whole
// number of fragments; every event is built and verified on local and tcp; windows too short for
// one fragment are refused.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace evb::test;

TEST(A2a, OnTheSimulatorEachRuRunsAtEquation32) {
    const std::uint64_t size = 256 * 1024;
    auto probe = run_evbench_json("--transport sim --k 4 --nodes 32 --events 10 --fragment-size 256KiB", "a2a_beff");
    ASSERT_FALSE(probe.is_null());
    const double b_eff = probe["results"]["network"]["effective_gbps"].get<double>();
    // What Config::a2a_message_time gives at the rate the simulator sets (b_eff).
    const auto t = static_cast<std::int64_t>(std::ceil(static_cast<double>(size) * 8 / b_eff * 1e3));
    for (const auto& [k, idle] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 10'000'000}, {2, 40'000'000}}) {
        const std::int64_t send = k * t;
        auto doc = run_evbench_json("--transport sim --k 4 --nodes 32 --protocol push --scheduling a2a --credits 16 --parallel 16 "
                                    "--fragment-size 256KiB --send-window " + std::to_string(send) + "ps --idle-window " +
                                        std::to_string(idle) + "ps --duration 10ms --warmup 2ms",
                                    "a2a_sim_" + std::to_string(k));
        ASSERT_FALSE(doc.is_null());
        EXPECT_EQ(doc["config"]["a2a"]["fragments_per_window"], k);
        const double expected = b_eff * static_cast<double>(send) / static_cast<double>(send + idle);   // eq. 3.2
        EXPECT_NEAR(doc["config"]["a2a"]["eq_3_2_gbps_per_ru"].get<double>(), expected, 1e-9);
        const double measured = doc["results"]["system"]["per_node_out_gbps"].get<double>();
        EXPECT_NEAR(measured / expected, 1.0, 0.01) << k << " per window: " << measured << " Gb/s per RU, eq. 3.2 " << expected;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    }
}

TEST(A2a, BuildsAndVerifiesEveryEventOnLocalAndTcp) {
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"a2a_local", "--nodes 4"}, {"a2a_tcp", "--transport tcp --launch-local 4"}}) {
        auto doc = run_evbench_json(args + " --protocol push --scheduling a2a --send-window 2ms --idle-window 500us --line-rate 10 "
                                           "--credits 4 --parallel 4 --fragment-size 64KiB --events 200 --verify full",
                                    name);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_EQ(doc["results"]["system"]["events_built"], 200) << name;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0) << name;
    }
}
