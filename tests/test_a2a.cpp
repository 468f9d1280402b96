// The time-window linear shifter (thesis 3.2.3, --scheduling a2a): on the simulator each RU's
// rate (network and loopback) is eq. 3.2's b_eff T_send / (T_send + T_idle) within 1% for windows that hold a whole
// number of fragments; every event is built and verified on local and tcp; windows too short for
// one fragment are refused.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <regex>

using namespace evb::test;

namespace {

// A run with its header printed (--quiet leaves it out): the JSON, and what it printed in `report`.
nlohmann::json run_with_header(const std::string& args, const std::string& name, std::string& report) {
    const std::string json = temp_path(name + ".json");
    auto r = run_command(evbench_binary() + " " + args + " --json " + json, 60);
    report = r.out;
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(read_file(json)) : nlohmann::json{};
}

} // namespace

TEST(A2a, OnTheSimulatorEachRuRunsAtEquation32) {
    const std::uint64_t size = 256 * 1024;
    auto probe = run_evbench_json("--transport sim --k 4 --nodes 32 --events 10 --fragment-size 256KiB", "a2a_beff");
    ASSERT_FALSE(probe.is_null());
    const double b_eff = probe["results"]["network"]["effective_gbps"].get<double>();
    // What UnitConfig::a2a_message_time gives at the rate the simulator sets (b_eff).
    const auto t = static_cast<std::int64_t>(std::ceil(static_cast<double>(size) * 8 / b_eff * 1e3));
    for (const auto& [k, idle] : std::vector<std::pair<std::int64_t, std::int64_t>>{{4, 10'000'000}, {2, 40'000'000}}) {
        const std::int64_t send = k * t;
        auto doc =
            run_evbench_json("--transport sim --k 4 --nodes 32 --protocol push --scheduling a2a --credits 16 --parallel 16 "
                             "--fragment-size 256KiB --send-window " +
                                 std::to_string(send) + "ps --idle-window " + std::to_string(idle) + "ps --duration 10ms --warmup 2ms",
                             "a2a_sim_" + std::to_string(k));
        ASSERT_FALSE(doc.is_null());
        EXPECT_EQ(doc["config"]["a2a"]["fragments_per_window"], k);
        const double expected = b_eff * static_cast<double>(send) / static_cast<double>(send + idle); // eq. 3.2
        EXPECT_NEAR(doc["config"]["a2a"]["eq_3_2_gbps_per_ru"].get<double>(), expected, 1e-9);
        // Rates count what crossed the links: the phase in which an RU sends to its own node's
        // BU (1 in 32) goes through the adapter's loopback, not the network.
        const double measured = doc["results"]["system"]["per_node_out_gbps"].get<double>() * 32 / 31;
        EXPECT_NEAR(measured / expected, 1.0, 0.01) << k << " per window: " << measured << " Gb/s per RU, eq. 3.2 " << expected;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    }
}

// With 200 Gb/s host cables, generated or read from a dump, the window holds fragments at 200
// Gb/s's b_eff, not --link-rate's (before: fitted at 100, so half as many as the hosts can send).
TEST(A2a, OnTheSimulatorTheWindowIsFittedToTheHostCables) {
    const std::string dump = temp_path("a2a_hdr.net");
    ASSERT_EQ(run_command(evbench_binary() + " fabric --k 4 --host-links 4xHDR --write-topology " + dump).exit_code, 0);
    for (const std::string& fabric : std::vector<std::string>{"--k 4 --host-links 4xHDR", "--topology " + dump}) {
        auto probe = run_evbench_json("--transport sim " + fabric + " --nodes 8 --events 4 --fragment-size 256KiB", "a2a_hdr_beff");
        ASSERT_FALSE(probe.is_null()) << fabric;
        const double b_eff = probe["results"]["network"]["effective_gbps"].get<double>();
        EXPECT_GT(b_eff, 150.0) << fabric; // 200 Gb/s cables
        const auto t = static_cast<std::int64_t>(std::ceil(256.0 * 1024 * 8 / b_eff * 1e3));
        auto doc = run_evbench_json("--transport sim " + fabric +
                                        " --nodes 8 --protocol push --scheduling a2a --credits 8 --parallel 8 "
                                        "--fragment-size 256KiB --send-window " +
                                        std::to_string(4 * t) + "ps --idle-window 1us --duration 100us",
                                    "a2a_hdr");
        ASSERT_FALSE(doc.is_null()) << fabric;
        EXPECT_EQ(doc["config"]["a2a"]["fragments_per_window"], 4) << fabric;
        EXPECT_NEAR(doc["config"]["a2a"]["eq_3_2_gbps_per_ru"].get<double>(), b_eff * 4 * t / (4 * t + 1e6), 1e-9) << fabric;
    }
}

TEST(A2a, BuildsAndVerifiesEveryEventOnLocalAndTcp) {
    for (const auto& [name, args] :
         std::vector<std::pair<std::string, std::string>>{{"a2a_local", "--nodes 4"}, {"a2a_tcp", "--transport tcp --launch-local 4"}}) {
        auto doc = run_evbench_json(args +
                                        " --protocol push --scheduling a2a --send-window 2ms --idle-window 500us --line-rate 10 "
                                        "--credits 4 --parallel 4 --fragment-size 64KiB --events 200 --verify full",
                                    name);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_EQ(doc["results"]["system"]["events_built"], 200) << name;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0) << name;
    }
}

// A window a hair short of n + 1 fragments holds n: 10 fragments at the line rate plus their
// headers take a little more than 3008 us, so that window holds 9 and the run can reach 0.90 of
// eq. 3.2 at most. The header says so and names the window that holds 10 (before, nothing did,
// and a bench that sized its window from the same arithmetic, rounded down, lost a tenth).
TEST(A2a, TheHeaderSaysWhenTheWindowHoldsOneFragmentLessThanItsTime) {
    const std::string flags = "--nodes 4 --protocol push --scheduling a2a --idle-window 300us --line-rate 6.97 --credits 16 "
                              "--fragment-size 256KiB --events 40 --send-window ";
    std::string report;
    auto short_window = run_with_header(flags + "3008us", "a2a_short_window", report);
    EXPECT_EQ(short_window["config"]["a2a"]["fragments_per_window"], 9);
    EXPECT_NEAR(short_window["config"]["a2a"]["window_fill"].get<double>(), 0.90, 0.005);
    const std::string said = "# a2a: the 9 fragments of a window fill 0.90 of it (one takes 300.883 us at --line-rate, its headers "
                             "included): at most 0.90 of eq. 3.2; --send-window 3008827ns holds 10\n";
    EXPECT_NE(report.find(said), std::string::npos) << report;
    auto named = run_with_header(flags + "3008827ns", "a2a_named_window", report);
    EXPECT_EQ(named["config"]["a2a"]["fragments_per_window"], 10);
    EXPECT_GT(named["config"]["a2a"]["window_fill"].get<double>(), 0.99);
    EXPECT_EQ(report.find("fragments of a window fill"), std::string::npos) << report;
}

// Credits that cannot feed a window are said, not left to be guessed from a low rate: with 2
// credits a builder has at most 4 fragments from one RU in a window of 19, so each RU sends at most
// 4/19 of eq. 3.2 (before, the run reached a fraction of it without a word).
TEST(A2a, TheHeaderSaysWhenTheCreditsCannotFeedTheWindow) {
    const std::string json = temp_path("a2a_few_credits.json");
    auto r = run_command(evbench_binary() +
                             " --nodes 4 --protocol push --scheduling a2a --send-window 1ms --idle-window 100us --line-rate 10 "
                             "--credits 2 --fragment-size 64KiB --duration 500ms --json " +
                             json,
                         60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string report = r.out;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_NE(
        report.find("# a2a: 2 credits per builder feed at most 4 of the 19 fragments of a window (each credit's event, and the one its "
                    "completion lets in): at most 0.21 of eq. 3.2; --credits 10 fills it\n"),
        std::string::npos)
        << report;
    const auto& a2a = doc["config"]["a2a"];
    EXPECT_NEAR(a2a["window_fill_bound"].get<double>(), 4.0 / 19, 1e-9) << a2a;
    // A bound indeed: every RU sends less over the network (and less still with its own BU's
    // fragments, which stay on its node).
    for (const auto& node : doc["results"]["nodes"])
        EXPECT_LE(node["out_gbps"].get<double>(), a2a["window_fill_bound"].get<double>() * a2a["eq_3_2_gbps_per_ru"].get<double>()) << node;
    auto enough = run_with_header("--nodes 4 --protocol push --scheduling a2a --send-window 1ms --idle-window 100us --line-rate 10 "
                                  "--credits 10 --fragment-size 64KiB --events 100",
                                  "a2a_enough_credits", report);
    EXPECT_NE(report.find("# a2a: send window"), std::string::npos) << report; // the header is there
    EXPECT_EQ(report.find("credits per builder feed"), std::string::npos) << report;
    EXPECT_EQ(enough["config"]["a2a"]["window_fill_bound"], 1.0);
}

#include "units/readout_unit.hpp"
#include "recording_context.hpp"

namespace {

// A readout unit under a2a driven by hand: fragments of 1 us at 1000 Gb/s, idle windows of 1 us,
// 8 credits, and `events` events assigned to it for every BU at time 0.
struct HandDrivenA2a {
    static evb::UnitConfig config(std::uint32_t nodes, std::uint32_t parallel, std::int64_t send_window_ps) {
        evb::UnitConfig c;
        c.nodes = nodes;
        c.protocol = evb::Protocol::push;
        c.scheduling = evb::Scheduling::a2a;
        c.credits = 8;
        c.parallel = parallel;
        c.fragment_size = 125000; // 1 us at 1000 Gb/s
        c.line_gbps = 1000;
        c.send_window = evb::Picoseconds(send_window_ps);
        c.idle_window = evb::Picoseconds(1'000'000);
        c.events = 0;
        c.duration = evb::Picoseconds(0);
        return c;
    }
    HandDrivenA2a(std::uint32_t nodes, std::uint32_t parallel, std::int64_t send_window_ps, std::uint32_t index, std::uint64_t events)
        : c(config(nodes, parallel, send_window_ps)), sizer(c), schedule(evb::make_schedule(c.scheduling, 1)), setup{c, sizer, *schedule},
          pool(c.fragment_stride(), 64), ru(setup, index, pool) {
        for (std::uint64_t e = 0; e < events; ++e)
            for (std::uint32_t bu = 0; bu < nodes; ++bu) {
                evb::Message m{};
                m.type = evb::MessageType::push_assign;
                m.event = e * nodes + bu;
                m.peer_index = bu;
                m.slot = static_cast<std::uint32_t>(e);
                ru.on_message(ctx, m);
            }
    }
    // Write `write` of ctx.writes completes at `at_ps`.
    void complete(std::size_t write, std::int64_t at_ps) {
        evb::WriteCompletion done;
        done.kind = evb::WriteCompletion::Kind::write_done;
        done.cookie = ctx.writes[write].cookie;
        ctx.now_ = evb::Picoseconds(at_ps);
        ru.on_completion(ctx, done);
    }
    evb::UnitConfig c;
    evb::FragmentSizer sizer;
    std::unique_ptr<evb::Schedule> schedule;
    evb::UnitSetup setup;
    evb::MemoryPool pool;
    evb::ReadoutUnit ru;
    RecordingContext ctx;
};

} // namespace

// The RU under a2a, driven by hand: in phase p it writes only to BU (i + p) mod B, only inside
// the send window and only what finishes in it at the line rate; the next window's timer moves it on.
TEST(A2a, TheReadoutUnitSendsOnlyToThePhasesBuilderInsideItsWindow) {
    // 4 nodes, 8 in flight, a 2.5 us window (2 fragments fit, not 3), RU 1, three events for every BU.
    HandDrivenA2a a(4, 8, 2'500'000, 1, 3);
    auto& ctx = a.ctx;
    // Phase 0 (0..3.5 us): BU 1, two fragments.
    ASSERT_EQ(ctx.writes.size(), 2u);
    for (const auto& w : ctx.writes) EXPECT_EQ(w.to.index, 1u);
    // A completion inside the window posts nothing more: a third would end after 2.5 us.
    a.complete(0, 1'000'000);
    EXPECT_EQ(ctx.writes.size(), 2u);
    // The timer for the next window (3.5 us) was armed; phase 1 goes to BU 2.
    ASSERT_FALSE(ctx.timers.empty());
    EXPECT_EQ(ctx.timers.back().first, evb::Picoseconds(3'500'000));
    ctx.now_ = evb::Picoseconds(3'500'000);
    a.ru.on_timer(ctx, ctx.timers.back().second);
    ASSERT_EQ(ctx.writes.size(), 4u);
    EXPECT_EQ(ctx.writes[2].to.index, 2u);
    EXPECT_EQ(ctx.writes[3].to.index, 2u);
    // In the idle window nothing goes out, whatever completes.
    a.complete(2, 6'200'000);
    EXPECT_EQ(ctx.writes.size(), 4u);
}

// The window holds its fragments at the line rate from its start, whenever the RU wakes: a
// completion or a timer that comes late (a real process's wake-up) costs it nothing. Before, the
// count ran from the wake-up, so a window of exactly w fragments carried w - 1 whenever anything
// was late: 0.90 of eq. 3.2 in one process, 0.62 to 0.79 over tcp.
TEST(A2a, ALateWakeUpCostsTheWindowNoFragment) {
    // 2 nodes, one in flight (the next fragment waits for the last one's completion), a 2 us
    // window (exactly 2 fragments), RU 0, four events for every BU.
    HandDrivenA2a a(2, 1, 2'000'000, 0, 4);
    auto& ctx = a.ctx;
    ASSERT_EQ(ctx.writes.size(), 1u); // phase 0, BU 0
    a.complete(0, 1'300'000); // 0.3 us late: the second fragment still ends at 2 us
    ASSERT_EQ(ctx.writes.size(), 2u);
    EXPECT_EQ(ctx.writes[1].to.index, 0u);
    a.complete(1, 2'100'000); // in the idle window: nothing
    EXPECT_EQ(ctx.writes.size(), 2u);
    ctx.now_ = evb::Picoseconds(3'200'000); // phase 1's timer, 0.2 us late
    a.ru.on_timer(ctx, ctx.timers.back().second);
    ASSERT_EQ(ctx.writes.size(), 3u);
    a.complete(2, 4'100'000); // the window's second fragment ends at 5 us, its end
    ASSERT_EQ(ctx.writes.size(), 4u);
    EXPECT_EQ(ctx.writes[2].to.index, 1u);
    EXPECT_EQ(ctx.writes[3].to.index, 1u);
}

// The window discipline in a real tcp run, from the RUs' own trace of every post: each fragment
// goes out inside its phase's send window, to the phase's builder (RU i, phase p: BU (i + p) mod
// N), at most w per window, and the phases advance with the clock.
TEST(A2a, OnTcpEveryFragmentGoesOutInsideItsPhasesWindowToThePhasesBuilder) {
    // 2 Gb/s, 256 KiB: 1.05 ms per fragment, 4 in a 5 ms window; 1 ms idle.
    auto r =
        run_command(evbench_binary() +
                        " --transport tcp --launch-local 4 --protocol push --scheduling a2a --line-rate 2 --send-window 5ms "
                        "--idle-window 1ms --fragment-size 256KiB --credits 16 --parallel 4 --duration 300ms --log-level trace --quiet",
                    120);
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
    const std::regex post(R"(RU (\d+) a2a phase (\d+) window (\d+)-(\d+) ps posts event \d+ to BU (\d+) at (\d+) ps)");
    std::map<std::pair<long, long>, int> per_window; // (RU, phase): fragments
    std::map<long, long> last_phase;
    std::size_t posts = 0;
    for (std::sregex_iterator i(r.err.begin(), r.err.end(), post), end; i != end; ++i) {
        const auto& m = *i;
        const long ru = std::stol(m[1]), phase = std::stol(m[2]), bu = std::stol(m[5]);
        const long long start = std::stoll(m[3]), stop = std::stoll(m[4]), at = std::stoll(m[6]);
        ++posts;
        EXPECT_EQ(start, phase * 6'000'000'000LL) << m.str();
        EXPECT_EQ(stop - start, 5'000'000'000LL) << m.str();
        EXPECT_GE(at, start) << m.str();
        EXPECT_LT(at, stop) << m.str();
        EXPECT_EQ(bu, (ru + phase) % 4) << m.str();
        EXPECT_LE(++per_window[std::make_pair(ru, phase)], 4) << m.str();
        if (last_phase.count(ru)) {
            EXPECT_GE(phase, last_phase[ru]) << "RU " << ru << " went back in phases: " << m.str();
        }
        last_phase[ru] = phase;
    }
    ASSERT_GT(posts, 0u) << r.err.substr(0, 2000);
    // Every RU posted in many phases, in order: 300 ms are 50 phases.
    for (long ru = 0; ru < 4; ++ru) {
        std::size_t phases = 0;
        for (const auto& [key, n] : per_window) phases += key.first == ru;
        EXPECT_GE(phases, 20u) << "RU " << ru;
    }
}
