// --warmup on every executor: bytes, events and latencies count from its end on, the rates leave
// the start-up out, and the JSON says where counting began. Real transports count from a tenth
// of a timed run by default; a run of --events and the simulator from the start.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <regex>

using namespace evb::test;

namespace {

struct WarmupCase {
    const char* name;
    const char* args; // a run whose warm-up ends at `from_s`
    double from_s;
};

class WarmupOnEveryExecutor : public ::testing::TestWithParam<WarmupCase> {};

// Nothing of the warm-up counts: every node's first event is built after it, every latency
// recorded is of an event counted, and the bytes are those of the events counted (plus what was
// in flight at either end), not of the whole run.
TEST_P(WarmupOnEveryExecutor, CountsStartWhereTheWarmupEnds) {
    const auto& c = GetParam();
    const auto doc = run_evbench_json(c.args, std::string("warmup_") + c.name);
    ASSERT_FALSE(doc.is_null());
    const auto& results = doc["results"];
    EXPECT_DOUBLE_EQ(results["counted_from_s"].get<double>(), c.from_s);
    EXPECT_DOUBLE_EQ(doc["config"]["warmup_s"].get<double>(), c.from_s);
    const std::uint64_t nodes = doc["config"]["nodes"], credits = doc["config"]["credits"], fragment = doc["config"]["fragment_size"];
    std::uint64_t events = 0;
    for (const auto& n : results["nodes"]) {
        const auto& raw = n["raw"];
        const std::uint64_t built = raw["events_built"];
        ASSERT_GT(built, 0u) << n;
        events += built;
        EXPECT_GE(raw["first_build_ps"].get<double>(), c.from_s * 1e12) << n;
        EXPECT_EQ(raw["latency"]["count"], built) << n;
        // What a BU received: its events' fragments, and at most its credits' worth more in flight.
        EXPECT_LE(raw["bytes_in"].get<std::uint64_t>(), (built + 2 * credits) * nodes * (fragment + 64)) << n;
    }
    EXPECT_EQ(results["system"]["events_built"], events);
    EXPECT_GT(results["window_s"].get<double>(), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Executors, WarmupOnEveryExecutor,
    ::testing::Values(WarmupCase{"InProcess", "--duration 1s --warmup 500ms --fragment-size 64KiB", 0.5},
                      WarmupCase{"Tcp", "--transport tcp --launch-local 2 --duration 1s --warmup 600ms --fragment-size 64KiB", 0.6},
                      WarmupCase{"Simulated", "--transport sim --nodes 4 --duration 2ms --warmup 1ms --fragment-size 64KiB", 0.001}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(Warmup, ATimedRealRunCountsFromATenthOfItsDurationAndSaysSo) {
    std::string report;
    auto doc = run_json_command(evbench_binary() + " --duration 1s --fragment-size 64KiB", "warmup_default", report);
    ASSERT_FALSE(doc.is_null());
    EXPECT_DOUBLE_EQ(doc["results"]["counted_from_s"].get<double>(), 0.1);
    auto shown = run_command(evbench_binary() + " --duration 1s --fragment-size 64KiB --progress-interval 50ms", 60);
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_NE(shown.out.find(", counted from 0.1 s (--warmup)"), std::string::npos) << shown.out;
    // The lines of the warm-up say so, and only they.
    const std::regex line(R"(\[\s*([0-9.]+) s\] events .*in flight \d+(  \(warm-up: not counted\))?\n)");
    std::size_t warming = 0, counted = 0;
    for (auto it = std::sregex_iterator(shown.out.begin(), shown.out.end(), line); it != std::sregex_iterator(); ++it) {
        const double at = std::stod((*it)[1]);
        const bool marked = (*it)[2].matched;
        EXPECT_EQ(marked, at < 0.1) << it->str();
        ++(marked ? warming : counted);
    }
    EXPECT_GT(warming, 0u) << shown.out;
    EXPECT_GT(counted, 0u) << shown.out;
}

TEST(Warmup, ARunOfEventsAndASimulatedRunCountFromTheStart) {
    auto events = run_evbench_json("--events 200 --fragment-size 64KiB", "warmup_events");
    ASSERT_FALSE(events.is_null());
    EXPECT_DOUBLE_EQ(events["results"]["counted_from_s"].get<double>(), 0);
    EXPECT_EQ(events["results"]["system"]["events_built"], 200);
    auto sim = run_evbench_json("--transport sim --nodes 4 --duration 1ms", "warmup_sim");
    ASSERT_FALSE(sim.is_null());
    EXPECT_DOUBLE_EQ(sim["results"]["counted_from_s"].get<double>(), 0);
}

// A run that ends within its warm-up (its events built, or Ctrl-C) keeps its counts from the start
// and says so, rather than reporting nothing.
TEST(Warmup, ARunThatEndsWithinItsWarmupCountsFromTheStartAndSaysSo) {
    std::string report;
    auto doc = run_json_command(evbench_binary() + " --events 20 --fragment-size 64KiB --warmup 30s", "warmup_never", report);
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["results"]["system"]["events_built"], 20);
    EXPECT_DOUBLE_EQ(doc["results"]["counted_from_s"].get<double>(), 0);
    EXPECT_NE(report.find("# the run ended within its warm-up (30 s): its counts are from the start\n"), std::string::npos) << report;
}

} // namespace
