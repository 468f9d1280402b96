// barrel-sync's pacer and its barrier driven by hand: which RU each phase asks, when a BU may
// enter the next phase, where an event given in the middle of a phase starts, and how the barrier
// counts a peer that finishes.
#include "units/barrel_sync_pacer.hpp"
#include "units/builder_unit.hpp"
#include "units/phase_barrier.hpp"
#include "recording_context.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>
#include <vector>

using evb::test::RecordingContext;

namespace {

// A BU whose slots each have `steps` RUs left to ask, recording the requests the pacer makes.
struct FakeBuilder final : evb::BarrelSyncPacer::Builder {
    explicit FakeBuilder(std::size_t slots) : steps(slots, 0) {}
    bool has_step_left(std::uint32_t slot) const override { return steps[slot] > 0; }
    void request(evb::Context&, std::uint32_t slot, std::uint32_t ru) override {
        --steps[slot];
        asked.emplace_back(slot, ru);
    }
    bool done_building() const override { return done; }

    std::vector<std::uint32_t> steps;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> asked; // (slot, RU)
    bool done = false;
};

evb::Message phase_done(std::uint32_t from, std::uint64_t phase, bool finished = false) {
    evb::Message m{};
    m.type = evb::MessageType::phase_done;
    m.from = evb::Role::builder;
    m.from_index = from;
    m.count = phase;
    m.slot = finished ? 1 : 0;
    return m;
}

std::size_t phase_reports(const RecordingContext& ctx) {
    std::size_t n = 0;
    for (const auto& [to, m] : ctx.sent) n += m.type == evb::MessageType::phase_done;
    return n;
}

} // namespace

TEST(BarrelSyncPacer, AsksRuSelfPlusPhaseAndEntersTheNextPhaseOnlyWhenEveryBuilderIsDone) {
    FakeBuilder bu(2);
    evb::BarrelSyncPacer pacer(bu, 1, 3, 4, 2); // BU 1 of 3, 4 RUs, 2 slots
    RecordingContext ctx;
    pacer.start(ctx);
    EXPECT_EQ(phase_reports(ctx), 2u) << "phase 0 had nothing in it: reported to BUs 0 and 2 at once";
    bu.steps[0] = 4;
    pacer.event_begun(ctx, 0);
    EXPECT_TRUE(bu.asked.empty()) << "phase 0 is reported: the event starts in phase 1";
    pacer.on_phase_done(ctx, phase_done(0, 0));
    EXPECT_EQ(pacer.phase(), 0u) << "BU 2 has not reported phase 0";
    pacer.on_phase_done(ctx, phase_done(2, 0));
    ASSERT_EQ(pacer.phase(), 1u);
    ASSERT_EQ(bu.asked.size(), 1u);
    EXPECT_EQ(bu.asked[0], std::make_pair(0u, 2u)) << "phase 1 of BU 1 asks RU (1 + 1) mod 4";
    pacer.on_phase_done(ctx, phase_done(0, 1));
    pacer.on_phase_done(ctx, phase_done(2, 1));
    EXPECT_EQ(pacer.phase(), 1u) << "its own transfer of phase 1 is not in";
    EXPECT_EQ(phase_reports(ctx), 2u);
    pacer.transfer_in();
    pacer.pump(ctx);
    EXPECT_EQ(phase_reports(ctx), 4u);
    ASSERT_EQ(pacer.phase(), 2u);
    ASSERT_EQ(bu.asked.size(), 2u);
    EXPECT_EQ(bu.asked[1], std::make_pair(0u, 3u));
    EXPECT_EQ(ctx.stats_.errors.total(), 0u) << ctx.stats_.errors.describe();
}

TEST(BarrelSyncPacer, AnEventGivenBeforeThePhaseIsReportedJoinsIt) {
    FakeBuilder bu(2);
    evb::BarrelSyncPacer pacer(bu, 0, 2, 3, 2);
    RecordingContext ctx;
    pacer.start(ctx);
    bu.steps[0] = 3;
    pacer.event_begun(ctx, 0);
    pacer.on_phase_done(ctx, phase_done(1, 0));
    ASSERT_EQ(pacer.phase(), 1u);
    ASSERT_EQ(bu.asked.size(), 1u);
    bu.steps[1] = 3;
    pacer.event_begun(ctx, 1); // phase 1 is under way, its transfer not in: not reported yet
    ASSERT_EQ(bu.asked.size(), 2u);
    EXPECT_EQ(bu.asked[1], std::make_pair(1u, 1u)) << "asked at once, the phase's RU";
    pacer.transfer_in();
    pacer.pump(ctx);
    EXPECT_EQ(phase_reports(ctx), 1u) << "the second transfer of phase 1 is not in";
    pacer.transfer_in();
    pacer.pump(ctx);
    EXPECT_EQ(phase_reports(ctx), 2u);
}

TEST(BarrelSyncPacer, ABuilderLeftAloneGoesThroughThePhasesWithoutWaiting) {
    FakeBuilder bu(1);
    evb::BarrelSyncPacer pacer(bu, 2, 3, 3, 1);
    RecordingContext ctx;
    pacer.start(ctx);
    pacer.on_phase_done(ctx, phase_done(0, 0, true));
    pacer.on_phase_done(ctx, phase_done(1, 0, true));
    const std::uint64_t idle_phase = pacer.phase();
    pacer.pump(ctx);
    EXPECT_EQ(pacer.phase(), idle_phase) << "alone and idle: it waits for work";
    bu.steps[0] = 3;
    pacer.event_begun(ctx, 0); // the idle phase is not reported: the event joins it
    pacer.pump(ctx);
    while (bu.steps[0] > 0 && bu.asked.size() < 3) { // each transfer in moves it on at once
        const std::size_t before = bu.asked.size();
        pacer.transfer_in();
        pacer.pump(ctx);
        ASSERT_EQ(bu.asked.size(), before + 1) << "phase " << pacer.phase() << " waited";
    }
    ASSERT_EQ(bu.asked.size(), 3u) << "every RU asked, a phase each";
    for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(bu.asked[k].second, (2 + idle_phase + k) % 3) << "request " << k;
}

TEST(BarrelSyncPacer, APhaseReportNeitherCurrentNorNextIsAnError) {
    FakeBuilder bu(1);
    evb::BarrelSyncPacer pacer(bu, 0, 2, 2, 1);
    RecordingContext ctx;
    pacer.start(ctx);
    pacer.on_phase_done(ctx, phase_done(1, 5));
    EXPECT_EQ(ctx.stats_.errors.unexpected, 1u);
    EXPECT_EQ(pacer.phase(), 0u);
}

TEST(PhaseBarrier, APeerThatFinishesAfterReportingIsNotCountedTwice) {
    evb::PhaseBarrier barrier(0, 3);
    RecordingContext ctx;
    barrier.local_done(ctx, false);
    EXPECT_EQ(ctx.sent.size(), 2u); // told BUs 1 and 2
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
// The hang CI found (tcp, 1 run in 4): every other BU had finished, this one still had an event
// under way; it built nothing more because it waited for a barrier no one else was in.
TEST(BarrelSync, ABuilderLeftAloneStillWalksItsEventThroughEveryPhase) {
    evb::UnitConfig c;
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
    bu.on_message(ctx, phase_done(1, 0, true));
    bu.on_message(ctx, phase_done(2, 0, true));
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
