// --until steady (issue "A steady-state verdict"): on the simulator, a window in which BUs built
// nothing is never called steady, and the rate it gives holds for a run twice as long; a real run
// stops once its rate is known.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

using namespace evb::test;

namespace {

// A generated 64-node tree (k = 8), 64 KiB fragments: steady within 1 % in some 50 ms simulated.
const std::string tree64 = "--transport sim --nodes 64 --k 8 --fragment-size 64KiB";

} // namespace

TEST(SteadyVerdict, AWindowWhereBuildersBuiltNothingIsNeverCalledSteady) {
    // 1 MiB and 16 credits: the first event needs c N f / b_eff = 86 ms; the cap comes first.
    std::string out;
    auto doc = run_evbench_json("--transport sim --nodes 64 --k 8 --credits 16 --until steady --duration 5ms", "steady_idle", out);
    ASSERT_FALSE(doc.is_null());
    const auto& s = doc["results"]["steady"];
    EXPECT_FALSE(s["reached"].get<bool>());
    EXPECT_EQ(s["why_not"], "64 of 64 BUs have built no event yet");
    EXPECT_EQ(s["idle_builders"], 64);
    EXPECT_NE(out.find("# steady state (--until steady, +-1 %): not reached by 0.005 s (the cap, --duration 5ms): 64 of 64 BUs have "
                       "built no event yet"),
              std::string::npos)
        << out;
}

TEST(SteadyVerdict, ARunTwiceAsLongLandsWithinTheHalfWidthAndTheTargetIsJudged) {
    std::string out;
    auto steady = run_evbench_json(tree64 + " --until steady --target 70", "steady_64", out);
    ASSERT_FALSE(steady.is_null());
    const auto& s = steady["results"]["steady"];
    ASSERT_TRUE(s["reached"].get<bool>()) << s["why_not"];
    const double began = s["began_s"].get<double>(), until = s["until_s"].get<double>();
    const double rate = s["per_node_built_gbps"].get<double>(), half_width = s["half_width_gbps"].get<double>();
    EXPECT_LE(half_width, 0.01 * rate);
    EXPECT_EQ(s["idle_builders"], 0);
    EXPECT_EQ(s["short_builders"], 0);
    EXPECT_GT(began, 0.0);
    // The run stops where it knew: its window ends at the verdict.
    EXPECT_NEAR(steady["results"]["network"]["simulated_ps"].get<double>() * 1e-12, until, 1e-4);
    // Below 70 Gb/s on this tree: the target is not met, on average nor by the slowest node.
    EXPECT_EQ(s["target"]["average_met"], false);
    EXPECT_EQ(s["target"]["slowest_met"], false);
    EXPECT_NE(out.find("# target 70 Gb/s per node: average NOT met"), std::string::npos) << out;

    // The same from where the steady window began, for twice its length.
    auto longer = run_evbench_json(tree64 + fmt::format(" --warmup {:.9f}s --duration {:.9f}s", began, began + 2 * (until - began)),
                                   "steady_64_twice");
    ASSERT_FALSE(longer.is_null());
    EXPECT_NEAR(longer["results"]["system"]["per_node_built_gbps"].get<double>(), rate, half_width);
}

namespace {

// A real run under --until steady (a loose bound, so that a loaded machine gets there well before
// the cap): it stops once its rate is known, within the grace, with the verdict's lines and JSON.
void expect_a_run_that_stops_once_its_rate_is_known(const std::string& args, const std::string& name) {
    std::string out;
    auto doc = run_evbench_json(args + " --until steady --steady-bound 10 --duration 120s", name, out);
    ASSERT_FALSE(doc.is_null()) << out;
    const auto& r = doc["results"];
    const auto& s = r["steady"];
    ASSERT_TRUE(s["reached"].get<bool>()) << s["why_not"] << "\n" << out;
    const double rate = s["per_node_built_gbps"].get<double>(), until = s["until_s"].get<double>();
    EXPECT_GT(rate, 0.0);
    EXPECT_LE(s["half_width_gbps"].get<double>(), 0.1 * rate);
    EXPECT_EQ(s["idle_builders"], 0);
    EXPECT_EQ(s["short_builders"], 0);
    EXPECT_LT(s["began_s"].get<double>(), until);
    // Ended by the verdict, not by a signal nor the cap: what was under way drained within the grace.
    EXPECT_TRUE(r["interrupted"].is_null()) << r["interrupted"];
    EXPECT_GE(r["elapsed_s"].get<double>(), until);
    EXPECT_LE(r["elapsed_s"].get<double>(), until + 10);
    EXPECT_EQ(r["counted_from_s"], 0.0); // no --warmup: the verdict finds the start-up's end
    EXPECT_NE(out.find(fmt::format("# steady state (--until steady, +-10 %): reached at {:.6g} s", until)), std::string::npos) << out;
}

} // namespace

// Rank 0 assembles every BU's counts from the ranks' progress records and tells every rank to end.
TEST(SteadyVerdict, ATcpRunStopsOnceItsRateIsKnown) {
    expect_a_run_that_stops_once_its_rate_is_known("--transport tcp --launch-local 4", "steady_tcp");
}

TEST(SteadyVerdict, AnInProcessRunStopsOnceItsRateIsKnown) {
    expect_a_run_that_stops_once_its_rate_is_known("--transport local --nodes 4", "steady_local");
}
