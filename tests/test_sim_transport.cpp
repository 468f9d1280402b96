// The event builder on the simulated fabric (drivers/sim), through the real binary: the same
// units build and verify every event, issue the same requests as on the local transport, stay
// within eq. 3.1's memory and within the link's effective bandwidth (eq. 2.14).
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <regex>
#include <sstream>

using namespace evb::test;

namespace {

nlohmann::json run_sim(const std::string& args, const std::string& name) { return run_evbench_json("--transport sim " + args, name); }
nlohmann::json run_sim(const std::string& args, const std::string& name, std::string& report) {
    return run_evbench_json("--transport sim " + args, name, report);
}

// Per (BU, event): the slot and the RUs requested, in order, from --log-level trace.
using Requests = std::map<std::pair<int, std::uint64_t>, std::vector<int>>;
Requests request_trace(const std::string& args) {
    auto r = run_command(evbench_binary() + " --quiet --log-level trace " + args, 120);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    static const std::regex line(R"re(BU (\d+) requests event (\d+) slot (\d+) from RU (\d+))re");
    Requests out;
    std::istringstream in(r.err);
    std::string text;
    while (std::getline(in, text)) {
        std::smatch m;
        if (std::regex_search(text, m, line)) out[{std::stoi(m[1]), std::stoull(m[2])}].push_back(std::stoi(m[4]));
    }
    return out;
}

} // namespace

TEST(SimTransport, BuildsAndVerifiesEveryEventForEveryProtocolAndLayout) {
    struct Case {
        std::string args;
        std::uint64_t nodes;
    } cases[] = {
        {"--protocol pull --nodes 4", 4},
        {"--protocol push --nodes 4 --credits 3 --parallel 2", 4},
        {"--protocol pull-noem --nodes 5 --parallel 3", 5},
        {"--protocol pull --nodes 4 --ppn 2 --em own", 4},
        {"--protocol push --nodes 6 --ppn 2 --scheduling random --size-dist lognormal", 6},
    };
    for (const auto& c : cases) {
        auto doc = run_sim(c.args + " --events 60 --fragment-size 64KiB", "events");
        if (doc.is_null()) continue;
        const auto& sys = doc["results"]["system"];
        EXPECT_EQ(sys["events_built"], 60) << c.args;
        EXPECT_EQ(sys["errors"], 0) << c.args;
        EXPECT_EQ(doc["config"]["transport"], "sim");
        // Every fragment arrived: N per event; with fixed sizes, exactly N f bytes per event.
        std::uint64_t fragments = 0;
        for (const auto& n : doc["results"]["nodes"]) fragments += n["raw"]["fragments_in"].get<std::uint64_t>();
        EXPECT_EQ(fragments, 60 * c.nodes) << c.args;
        // The fabric carried them: every node's host port sent bytes.
        const auto& network = doc["results"]["network"];
        EXPECT_GT(network["events"].get<std::uint64_t>(), 0u);
        EXPECT_GT(network["simulated_ps"].get<std::int64_t>(), 0);
    }
}

TEST(SimTransport, FixedSizesMoveExactlyNFragmentsPerEvent) {
    auto doc = run_sim("--nodes 4 --events 40 --fragment-size 32KiB --credits 2 --parallel 2", "bytes");
    ASSERT_FALSE(doc.is_null());
    // The units' own counts: whole fragments.
    std::uint64_t in = 0, out = 0;
    for (const auto& n : doc["results"]["nodes"]) {
        in += n["raw"]["bytes_in"].get<std::uint64_t>();
        out += n["raw"]["bytes_out"].get<std::uint64_t>();
    }
    EXPECT_EQ(in, 40u * 4 * 32768);
    EXPECT_EQ(out, in);
    // One fragment in four stays on its node (the adapter's loopback, not on the network).
    const auto& network = doc["results"]["network"];
    EXPECT_EQ(network["bytes_through_memory"].get<std::uint64_t>() >= 40u * 32768, true);
    // The rates count the links: the other 3 in 4 fragments and the 64 B commands (requests,
    // credits, assignments, the end), over the span the links carried them.
    const double span = doc["results"]["bytes_window_s"];
    const double link_bytes = doc["results"]["system"]["in_gbps"].get<double>() * 1e9 / 8 * span;
    EXPECT_GT(link_bytes, 40.0 * 3 * 32768);
    EXPECT_LT(link_bytes, 40.0 * 3 * 32768 + 40.0 * 4 * 64 * 4);
}

// A timed run too short for any event says so and how long one would need; its byte rates are
// still the links' (a whole fragment counted at completion would show more than a link carries).
TEST(SimTransport, ARunTooShortForAnEventSaysHowLongOneNeeds) {
    std::string out;
    auto doc = run_sim("--nodes 8 --credits 16 --fragment-size 1MiB --duration 2ms", "short", out); // rates within b_eff checked
    ASSERT_FALSE(doc.is_null());
    // c N f / b_eff = 16 x 8 x 1 MiB x 8 / 99.37 Gb/s = 10.8 ms.
    EXPECT_NE(out.find("# no event was built in the 0.002000 s window"), std::string::npos) << out;
    EXPECT_NE(out.find("c N f / b_eff = 0.0108 s simulated; run --duration 22ms or longer for event figures, or --until steady"),
              std::string::npos)
        << out;
    EXPECT_EQ(doc["results"]["system"]["events_built"], 0);
    EXPECT_TRUE(doc["results"]["system"]["latency_us"].is_null());
    EXPECT_NEAR(doc["results"]["network"]["first_event_estimate_s"].get<double>(), 0.0108, 0.0001);
    // Every link busy from the start: the rates are near b_eff, not above it.
    EXPECT_GT(doc["results"]["system"]["per_node_in_gbps"].get<double>(), 90.0);
    // ... and they are the start-up's, which the report says from what the run saw.
    EXPECT_NE(out.find("# 8 of 8 BUs built no event in the window from 0 s: its rates hold the start-up"), std::string::npos) << out;
    EXPECT_TRUE(doc["results"]["network"]["start_up_in_window"].get<bool>());
}

// A window that opens before a BU's first event holds the start-up: said from what the run saw,
// not from the c N f / b_eff estimate (on 64 nodes, 1 MiB and 2 credits it reads 10.8 ms, and no
// BU had built an event by 10 ms; the estimate's rule had called a window from 11 ms steady while
// 423 of 500 BUs built no event in it).
TEST(SimTransport, AWindowThatHoldsABuildersFirstEventIsAStartUpWindow) {
    std::string out;
    auto doc = run_sim("--nodes 64 --k 8 --fragment-size 1MiB --duration 20ms --warmup 10ms", "first_events", out);
    ASSERT_FALSE(doc.is_null());
    EXPECT_TRUE(doc["results"]["network"]["start_up_in_window"].get<bool>());
    EXPECT_EQ(doc["results"]["system"]["first_events_in_window"], 64);
    EXPECT_EQ(doc["results"]["system"]["idle_builders"], 0);
    EXPECT_NE(out.find("# 64 of 64 BUs built their first event in the window from 0.01 s: its rates hold the start-up"), std::string::npos)
        << out;
}

// With the warm-up past the first credit cycle, the rates are the steady state's: no start-up note.
TEST(SimTransport, AWarmupPastTheFirstEventsLeavesTheStartUpOut) {
    std::string out;
    auto doc =
        run_sim("--nodes 8 --credits 16 --fragment-size 1MiB --duration 30ms --warmup 11ms", "steady", out); // rates within b_eff checked
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(out.find("start-up"), std::string::npos) << out;
    EXPECT_FALSE(doc["results"]["network"]["start_up_in_window"].get<bool>());
    EXPECT_GT(doc["results"]["system"]["events_built"].get<int>(), 0);
}

// Listing 3.3 falls out of the real units: for every BU and event, the fragment requests go to
// the same RUs in the same order on the simulated fabric as on the in-process transport. Without
// an EM the events of each BU are fixed (e mod N), so the whole trace must match.
TEST(SimTransport, RequestsMatchTheLocalTransportMessageForMessage) {
    const std::string config = "--nodes 4 --credits 2 --parallel 2 --events 40 --fragment-size 16KiB";
    auto local = request_trace("--transport local --protocol pull-noem " + config);
    auto sim = request_trace("--transport sim --protocol pull-noem " + config);
    ASSERT_EQ(local.size(), 40u);
    EXPECT_EQ(local, sim);
    // With the EM, which BU gets which event depends on timing; each event's requests do not:
    // BU b asks RU b, b+1, ... (barrel shift), once each.
    for (const auto& [key, rus] : request_trace("--transport sim --protocol pull " + config)) {
        ASSERT_EQ(rus.size(), 4u);
        for (int i = 0; i < 4; ++i) EXPECT_EQ(rus[static_cast<std::size_t>(i)], (key.first + i) % 4) << "BU " << key.first;
    }
}

// The fabric never delivers more than the effective bandwidth of eq. 2.14 per node, the memory in
// use never exceeds eq. 3.1, and the same seed gives the same simulation bit for bit.
TEST(SimTransport, ThroughputBoundedByEffectiveBandwidthAndMemoryByEquation31) {
    const std::string args = "--nodes 8 --k 2 --credits 4 --parallel 2 --duration 600us --warmup 200us";
    auto doc = run_sim(args, "bounds");
    ASSERT_FALSE(doc.is_null());
    const auto& rx = doc["results"]["network"]["fabric_rx_gbps"];
    const double b_eff = doc["results"]["network"]["effective_gbps"];
    EXPECT_NEAR(b_eff, 99.37, 0.01); // 1 MiB messages: 4096 B payload per 4122 B packet
    EXPECT_LE(rx["max"].get<double>(), b_eff * 1.0001);
    EXPECT_GT(rx["avg"].get<double>(), 0.5 * b_eff);
    const std::uint64_t f = doc["config"]["fragment_size"], m = 2, n = 8, c = 4;
    for (const auto& node : doc["results"]["nodes"]) {
        EXPECT_LE(node["peak_ru_bytes"].get<std::uint64_t>(), m * n * c * f);
        EXPECT_LE(node["peak_bu_bytes"].get<std::uint64_t>(), n * c * f);
        EXPECT_GT(node["peak_bu_bytes"].get<std::uint64_t>(), 0u);
    }
    auto again = run_sim(args, "bounds_again");
    ASSERT_FALSE(again.is_null());
    EXPECT_EQ(doc["results"]["nodes"], again["results"]["nodes"]);
    EXPECT_EQ(doc["results"]["network"]["ports"], again["results"]["network"]["ports"]);
}

// PUSH with barrel order on a non-blocking tree (16 hosts on 2 leaves of 8 with 8 spines): every
// RU waits at the BU under its cursor, so each step is a permutation and every BU link runs
// near b_eff, less the idle time of each write's ACK round trip with one write in flight
// (--parallel 1: 0.85 of b_eff before the ACK was simulated, 0.845 since). When RUs passed BUs
// without work yet, all followed the BU assigned first and every BU link ran at 0.37 to 0.43 of
// b_eff.
TEST(SimTransport, PushWithBarrelOrderKeepsEveryBuLinkNearEffectiveBandwidth) {
    auto doc =
        run_sim("--nodes 16 --k 8 --leaves 2 --credits 4 --protocol push --parallel 1 --fragment-size 256KiB --duration 3ms --warmup 1ms",
                "push_barrel");
    ASSERT_FALSE(doc.is_null());
    const auto& network = doc["results"]["network"];
    const double b_eff = network["effective_gbps"];
    EXPECT_GT(network["fabric_rx_gbps"]["min"].get<double>(), 0.8 * b_eff);
    EXPECT_LE(network["fabric_rx_gbps"]["max"].get<double>(), b_eff * 1.0001);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}

// Packet-granular mode is exact; the aggregated fast model stays within the thesis's error.
TEST(SimTransport, FastModesAgreeWithFlitMode) {
    const std::string args = "--nodes 8 --k 2 --credits 2 --parallel 2 --duration 300us --warmup 100us";
    auto flit = run_sim(args + " --mode flit", "flit");
    auto packet = run_sim(args + " --mode packet", "packet");
    auto aggregated = run_sim(args + " --mode aggregated --aggregation 16", "aggregated");
    ASSERT_FALSE(flit.is_null() || packet.is_null() || aggregated.is_null());
    auto avg = [](const nlohmann::json& d) { return d["results"]["network"]["fabric_rx_gbps"]["avg"].get<double>(); };
    EXPECT_EQ(flit["results"]["nodes"], packet["results"]["nodes"]);
    EXPECT_DOUBLE_EQ(avg(flit), avg(packet));
    EXPECT_NEAR(avg(aggregated), avg(flit), 2.4);
}

// Without --k the fabric is sized for the nodes from 36-port switches (the seeds' EDR): 500
// nodes take 28 leaves of 18 hosts and 18 spines, as a site would buy them.
TEST(SimTransport, TheDefaultFabricIsSizedFromTheSwitchRadix) {
    for (const auto& [args, fabric] :
         std::vector<std::pair<std::string, std::string>>{{"--nodes 500", "simulated: 504 hosts, 46 switches"},
                                                          {"--nodes 500 --radix 64", "simulated: 512 hosts, 48 switches"},
                                                          {"--nodes 40 --radix 8 --levels 3", "simulated: 40 hosts, 38 switches"}}) {
        auto r = run_command(evbench_binary() + " --transport sim --duration 5us " + args, 120);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
        EXPECT_NE(r.out.find(fabric), std::string::npos) << args << "\n" << r.out.substr(0, 300);
    }
}

// Event building at the scale of the next upgrades: 4096 nodes on the tree sized from 36-port
// switches (3 levels: 228 leaves, 234 aggregation switches, 324 cores). Few events of small
// fragments keep it short; every one of the 32 x 4096 fragments is checked.
TEST(SimTransport, FourThousandNinetySixNodesBuildEveryEventOnAThreeLevelTree) {
    auto doc = run_sim("--nodes 4096 --events 32 --fragment-size 4KiB --credits 1 --parallel 8", "n4096");
    ASSERT_FALSE(doc.is_null());
    EXPECT_EQ(doc["results"]["system"]["events_built"], 32);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    std::uint64_t fragments = 0;
    for (const auto& n : doc["results"]["nodes"]) fragments += n["raw"]["fragments_in"].get<std::uint64_t>();
    EXPECT_EQ(fragments, 32u * 4096);
    EXPECT_EQ(doc["results"]["network"]["hosts"], 4104);
    EXPECT_EQ(doc["results"]["network"]["switches"], 228 + 234 + 324);
}

namespace {
// A run's --json without what says how it ran rather than what it predicted: wall times, the
// thread count, the command line and the machine.
nlohmann::json predicted(nlohmann::json j) {
    std::vector<nlohmann::json*> todo{&j};
    while (!todo.empty()) {
        nlohmann::json* x = todo.back();
        todo.pop_back();
        if (x->is_object()) {
            for (const char* key : {"wall_seconds", "wall_s", "sim_threads", "invocation", "origins", "origin", "json"}) x->erase(key);
            for (auto& [key, value] : x->items()) todo.push_back(&value);
        } else if (x->is_array()) {
            for (auto& value : *x) todo.push_back(&value);
        }
    }
    return j;
}
} // namespace

// The event builder's every figure is the same whatever the number of threads, and so the
// number of parts the fabric is cut into: events built, each node's counts, the links' bytes,
// every port, the event count; under PULL with a warm-up, a progress line each 100 us and an
// injected failure (all between windows), and under PUSH.
TEST(SimTransport, EveryFigureIsTheSameOnOneToFourThreads) {
    for (const std::string args : {"--protocol pull --nodes 24 --ppn 2 --k 4 --credits 4 --fragment-size 64KiB --duration 3ms --warmup 1ms "
                                   "--progress-interval 100us --fail 5@2ms --fail-kind bu --on-failure continue",
                                   "--protocol push --nodes 16 --k 4 --credits 3 --parallel 2 --fragment-size 128KiB --duration 2ms"}) {
        const nlohmann::json one = predicted(run_sim(args + " --sim-threads 1", "threads1"));
        ASSERT_FALSE(one.is_null()) << args;
        ASSERT_GT(one["results"]["system"]["events_built"].get<std::uint64_t>(), 100u) << args;
        for (const char* threads : {"2", "3", "4"}) {
            const nlohmann::json differences =
                nlohmann::json::diff(one, predicted(run_sim(args + " --sim-threads " + threads, "threadsN")));
            EXPECT_TRUE(differences.empty()) << args << " on " << threads << " threads: " << differences.size()
                                             << " figures differ, the first " << (differences.empty() ? "" : differences[0].dump());
        }
    }
}
