// barrel-sync (DAQPIPE's synchronised barrel shift): from the trace of real runs, no BU enters
// phase n + 1 before every BU has all its transfers of phase n in and has said so, and in phase
// n BU b asks only RU (b + n) mod N, so every phase is a permutation; every event is built once
// and verified, on local, tcp and sim.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace evb::test;

namespace {

// Replays the trace of one process in order and checks the barrier and the permutation.
void expect_phases_in_lock_step(const std::string& trace, int nodes, std::uint64_t* requests_seen) {
    static const std::regex enters(R"re(BU (\d+) enters phase (\d+))re");
    static const std::regex done(R"re(BU (\d+) phase (\d+) done( \(finished\))?)re");
    static const std::regex request(R"re(BU (\d+) requests event \d+ slot \d+ from RU (\d+))re");
    std::map<int, long> phase_of;           // BU -> phase it is in
    std::map<int, long> reported;           // BU -> last phase it reported done
    std::set<int> finished;
    std::map<long, std::set<int>> asked;    // phase -> RUs asked in it (one BU each)
    std::istringstream in(trace);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, enters)) {
            int bu = std::stoi(m[1]);
            long phase = std::stol(m[2]);
            phase_of[bu] = phase;
            if (phase == 0) continue;
            for (int other = 0; other < nodes; ++other) {
                bool ok = finished.count(other) || (reported.count(other) && reported[other] >= phase - 1);
                EXPECT_TRUE(ok) << "BU " << bu << " entered phase " << phase << " before BU " << other << " finished phase " << phase - 1;
            }
        } else if (std::regex_search(line, m, done)) {
            int bu = std::stoi(m[1]);
            reported[bu] = std::stol(m[2]);
            if (m[3].matched) finished.insert(bu);
        } else if (std::regex_search(line, m, request)) {
            int bu = std::stoi(m[1]), ru = std::stoi(m[2]);
            ASSERT_TRUE(phase_of.count(bu)) << line;
            long phase = phase_of[bu];
            EXPECT_EQ(ru, (bu + phase) % nodes) << "BU " << bu << " in phase " << phase;
            asked[phase].insert(ru);
            ++*requests_seen;
        }
    }
    EXPECT_EQ(finished.size(), static_cast<std::size_t>(nodes)) << "every BU ends by saying it is finished";
}

} // namespace

class BarrelSyncTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(BarrelSyncTrace, NoBuEntersAPhaseBeforeEveryTransferOfThePreviousIsIn) {
    auto r = run_command(evbench_binary() + " --nodes 5 --credits 3 --scheduling barrel-sync --protocol " + GetParam() +
                             " --events 40 --verify full --log-level trace --quiet",
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
    std::uint64_t requests = 0;
    expect_phases_in_lock_step(r.err, 5, &requests);
    EXPECT_EQ(requests, 40u * 5);   // one request per fragment, every one in its phase's permutation
}

INSTANTIATE_TEST_SUITE_P(Protocols, BarrelSyncTrace, ::testing::Values("pull", "pull-noem"),
                         [](const auto& i) { return std::string(i.param) == "pull" ? "pull" : "pull_noem"; });


TEST(BarrelSync, BuildsEveryEventOnTcpProcessesAndOnTheSimulator) {
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"sync_tcp", "--transport tcp --launch-local 4 --credits 3 --verify full"},
             {"sync_tcp_noem", "--transport tcp --launch-local 4 --credits 2 --protocol pull-noem --verify full"},
             {"sync_sim", "--transport sim --nodes 16 --credits 4"}}) {
        auto doc = run_evbench_json(args + " --scheduling barrel-sync --events 300 --fragment-size 64KiB", name);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_EQ(doc["results"]["system"]["events_built"], 300) << name;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0) << name;
    }
}

#include "phase_barrier.hpp"
#include "recording_context.hpp"

TEST(PhaseBarrier, APeerThatFinishesAfterReportingIsNotCountedTwice) {
    evb::PhaseBarrier barrier(0, 3);
    RecordingContext ctx;
    barrier.local_done(ctx, false);
    EXPECT_EQ(ctx.sent.size(), 2u);   // told BUs 1 and 2
    EXPECT_TRUE(barrier.peer_done(1, 0, false));
    EXPECT_FALSE(barrier.can_advance());
    EXPECT_TRUE(barrier.peer_done(2, 0, false));
    ASSERT_TRUE(barrier.can_advance());
    barrier.advance();
    // BU 1 is done with phase 1 and, having our report, goes on and finishes in phase 2.
    EXPECT_TRUE(barrier.peer_done(1, 1, false));
    barrier.local_done(ctx, false);
    EXPECT_TRUE(barrier.peer_done(1, 2, true));
    EXPECT_FALSE(barrier.can_advance()) << "BU 2 has not finished phase 1";
    EXPECT_TRUE(barrier.peer_done(2, 1, false));
    EXPECT_TRUE(barrier.can_advance());
    EXPECT_FALSE(barrier.peer_done(2, 5, false)) << "a phase neither current nor next";
}

#include "builder_unit.hpp"

#include <cstring>

// The hang CI found (tcp, 1 run in 4): every other BU had finished, this one still had an event
// under way; it built nothing more because it waited for a barrier no one else was in.
TEST(BarrelSync, ABuilderLeftAloneStillWalksItsEventThroughEveryPhase) {
    evb::Config c;
    c.nodes = 3;
    c.credits = 1;
    c.parallel = 1;
    c.scheduling = evb::Scheduling::barrel_sync;
    c.fragment_size = 256;
    c.events = 0;
    c.duration = evb::Picoseconds(0);
    evb::FragmentSizer sizer(c);
    auto schedule = evb::make_schedule(c.scheduling, 1);
    evb::UnitSetup setup{c, sizer, *schedule};
    evb::MemoryPool slots(c.fragment_stride() * c.nodes, 2);
    slots.set_remote_key(7);
    evb::BuilderUnit bu(setup, 0, slots);
    RecordingContext ctx;
    bu.on_start(ctx);
    auto from_bu = [](std::uint32_t peer, std::uint64_t phase, bool finished) {
        evb::Message m{};
        m.type = evb::MessageType::phase_done;
        m.from = evb::Role::builder;
        m.from_index = peer;
        m.count = phase;
        m.slot = finished ? 1 : 0;
        return m;
    };
    bu.on_message(ctx, from_bu(1, 0, true));
    bu.on_message(ctx, from_bu(2, 0, true));
    evb::Message a{};
    a.type = evb::MessageType::assign;
    a.event = 9;
    a.slot = 0;
    bu.on_message(ctx, a);
    std::vector<std::uint32_t> asked;
    for (std::size_t handled = 0; handled < ctx.sent.size(); ++handled) {
        auto [to, m] = ctx.sent[handled];
        if (m.type != evb::MessageType::request) continue;
        asked.push_back(to.index);
        evb::FragmentGenerator gen(to.index, sizer.max_size(), sizer.max_size());
        std::vector<std::byte> block(c.fragment_stride());
        gen.prefill(block.data());
        gen.stamp(block.data(), 9, sizer.size(9, to.index));
        std::memcpy(slots.data() + m.offset, block.data(), sizer.size(9, to.index));
        evb::WriteCompletion w;
        w.kind = evb::WriteCompletion::Kind::write_arrived;
        w.imm = evb::WriteImm::encode(0, 0, to.index);
        w.offset = m.offset;
        w.length = sizer.size(9, to.index);
        bu.on_completion(ctx, w);
    }
    EXPECT_EQ(asked.size(), 3u) << "one request per RU, one per phase";
    EXPECT_EQ(bu.built(), 1u);
    EXPECT_EQ(ctx.stats_.errors.total(), 0u) << ctx.stats_.errors.describe();
}
