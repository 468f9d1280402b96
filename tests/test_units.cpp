// Units driven by hand through their entry points: EM credit accounting, BU completion logic with
// fragments in any order, RU serving requests under buffer loans.
#include "units/builder_unit.hpp"
#include "units/class_delivery.hpp"
#include "units/event_stream.hpp"
#include "units/event_manager.hpp"
#include "units/readout_unit.hpp"
#include "recording_context.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <set>

using namespace evb;
using namespace evb::test;

namespace {

UnitConfig small_config(Protocol p = Protocol::pull) {
    UnitConfig c;
    c.protocol = p;
    c.nodes = 4;
    c.credits = 2;
    c.parallel = 2;
    c.fragment_size = 256;
    c.events = 0;
    c.duration = Picoseconds(0);
    c.verify = Verify::full;
    return c;
}

Message credit_from(std::uint32_t bu, std::uint32_t slot) {
    Message m{};
    m.type = MessageType::credit;
    m.from = Role::builder;
    m.from_index = bu;
    m.slot = slot;
    m.rkey = 7;
    return m;
}

// The pure helpers every unit is built from, for one configuration.
struct UnitFixture {
    explicit UnitFixture(const UnitConfig& config)
        : c(config), sizer(c), schedule(make_schedule(c.scheduling, 1)), units{c, sizer, *schedule} {}
    UnitConfig c;
    FragmentSizer sizer;
    std::unique_ptr<Schedule> schedule;
    UnitSetup units;
};

// The first 64 B RU `src` writes for a fragment of event 5's size stamped with event `stamped`:
// what a transport that hands heads over gives the BU.
std::vector<std::byte> stamped_head(const UnitFixture& built, std::uint32_t src, std::uint64_t stamped) {
    FragmentGenerator gen(src, built.sizer.max_size(), built.sizer.max_size());
    std::vector<std::byte> block(built.c.fragment_stride());
    gen.prefill(block.data());
    gen.stamp(block.data(), stamped, built.sizer.size(5, src));
    return std::vector<std::byte>(block.begin(), block.begin() + 64);
}

// RU `index` of `config` with `blocks` buffers, driven by hand.
struct ReadoutFixture {
    ReadoutFixture(const UnitConfig& config, std::uint32_t index, std::uint32_t blocks)
        : built(config), pool(config.fragment_stride(), blocks), ru(built.units, index, pool) {}
    // The write with `cookie` has completed.
    void complete(std::uint64_t cookie) {
        WriteCompletion done;
        done.kind = WriteCompletion::Kind::write_done;
        done.cookie = cookie;
        ru.on_completion(ctx, done);
    }
    UnitFixture built;
    MemoryPool pool;
    ReadoutUnit ru;
    RecordingContext ctx;
};

} // namespace

TEST(EventManager, AssignsEachEventOnceAndCountsCredits) {
    UnitConfig c = small_config();
    c.events = 10;
    UnitFixture built(c);
    const UnitSetup& setup = built.units;
    EventManager em(setup);
    RecordingContext ctx;
    em.on_start(ctx);
    for (std::uint32_t bu = 0; bu < 4; ++bu)
        for (std::uint32_t s = 0; s < 2; ++s) em.on_message(ctx, credit_from(bu, s));
    // 8 credits -> events 0..7, each to the BU whose credit it consumed.
    std::set<std::uint64_t> events;
    for (auto& [to, m] : ctx.sent) {
        ASSERT_EQ(m.type, MessageType::assign);
        EXPECT_TRUE(events.insert(m.event).second) << "event " << m.event << " assigned twice";
    }
    EXPECT_EQ(events.size(), 8u);
    for (std::uint32_t bu = 0; bu < 4; ++bu) EXPECT_EQ(em.outstanding_credits(bu), 0u);
    // Two more credits reach the limit of 10: then every BU is told its total.
    em.on_message(ctx, credit_from(0, 0));
    em.on_message(ctx, credit_from(1, 0));
    EXPECT_TRUE(em.finished());
    std::uint64_t total = 0;
    for (auto& [to, m] : ctx.sent)
        if (m.type == MessageType::end) total += m.count;
    EXPECT_EQ(total, 10u);
    EXPECT_EQ(ctx.stats_.errors.credit_overflow, 0u);
}

TEST(EventManager, RefusesMoreCreditsThanConfigured) {
    UnitConfig c = small_config();
    c.events = 1; // stops after one event: further credits accumulate
    UnitFixture built(c);
    const UnitSetup& setup = built.units;
    EventManager em(setup);
    RecordingContext ctx;
    em.on_message(ctx, credit_from(2, 0)); // consumed by event 0
    em.on_message(ctx, credit_from(2, 1));
    em.on_message(ctx, credit_from(2, 0)); // slot 0 returned after the build: 2 outstanding, ok
    EXPECT_EQ(ctx.stats_.errors.credit_overflow, 0u);
    em.on_message(ctx, credit_from(2, 1)); // a third outstanding credit with c = 2
    EXPECT_EQ(ctx.stats_.errors.credit_overflow, 1u);
    EXPECT_LE(em.outstanding_credits(2), 3u);
}

TEST(EventManager, PushTellsEveryReadoutUnitWhereTheEventGoes) {
    UnitConfig c = small_config(Protocol::push);
    c.events = 1;
    UnitFixture built(c);
    const UnitSetup& setup = built.units;
    EventManager em(setup);
    RecordingContext ctx;
    Message cr = credit_from(3, 1);
    cr.offset = 4096;
    em.on_message(ctx, cr);
    std::set<std::uint32_t> rus;
    for (auto& [to, m] : ctx.sent)
        if (m.type == MessageType::push_assign) {
            EXPECT_EQ(m.peer_index, 3u);
            EXPECT_EQ(m.offset, 4096u);
            EXPECT_EQ(m.slot, 1u);
            rus.insert(to.index);
        }
    EXPECT_EQ(rus.size(), 4u);
}

// Builds the BU, gives it an event, and lands fragments (prepared by real RU generators) in the
// given order.
class BuilderUnitOrder : public ::testing::TestWithParam<int> {};

TEST_P(BuilderUnitOrder, CompletesOnlyWhenAllFragmentsInAnyOrder) {
    UnitConfig c = small_config();
    c.parallel = 4;
    UnitFixture built(c);
    const UnitSetup& setup = built.units;
    MemoryPool slots(c.fragment_stride() * c.nodes, 4);
    slots.set_remote_key(7); // what the executor records when it registers the pool
    BuilderUnit bu(setup, 1, slots);
    RecordingContext ctx;
    bu.on_start(ctx);
    ASSERT_EQ(ctx.sent.size(), 2u); // one credit per slot
    Message a{};
    a.type = MessageType::assign;
    a.event = 42;
    a.slot = ctx.sent[0].second.slot;
    ctx.now_ = Picoseconds(1000'000);
    bu.on_message(ctx, a);
    // Requests go to RUs 1, 2, 3, 0 (barrel shift from own index), all 4 at once (parallel 4).
    std::vector<Message> requests;
    for (auto& [to, m] : ctx.sent)
        if (m.type == MessageType::request) requests.push_back(m);
    ASSERT_EQ(requests.size(), 4u);
    std::vector<std::uint32_t> order(4);
    std::iota(order.begin(), order.end(), 0);
    std::mt19937 rng(static_cast<unsigned>(GetParam()));
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t k = 0; k < order.size(); ++k) {
        std::uint32_t src = order[k];
        // Write what RU `src` would: its generator's fragment at the offset the BU asked of it.
        std::uint64_t offset = 0;
        for (auto& m : requests)
            if ((m.offset % (c.fragment_stride() * c.nodes)) / c.fragment_stride() == src) offset = m.offset;
        FragmentGenerator gen(src, built.sizer.max_size(), built.sizer.max_size());
        std::vector<std::byte> block(c.fragment_stride());
        gen.prefill(block.data());
        std::uint32_t size = built.sizer.size(42, src);
        gen.stamp(block.data(), 42, size);
        std::memcpy(slots.data() + offset, block.data(), size);
        EXPECT_EQ(bu.built(), 0u);
        WriteCompletion w;
        w.kind = WriteCompletion::Kind::write_arrived;
        w.imm = WriteImm::encode(a.slot, 0, src);
        w.offset = offset;
        w.length = size;
        ctx.now_ = Picoseconds(2000'000 + static_cast<std::int64_t>(k));
        bu.on_completion(ctx, w);
    }
    EXPECT_EQ(bu.built(), 1u);
    EXPECT_EQ(ctx.stats_.errors.total(), 0u) << ctx.stats_.errors.describe();
    EXPECT_EQ(ctx.stats_.latency.count(), 1u);
    // The slot's credit goes back to the EM after the build.
    EXPECT_EQ(ctx.sent.back().second.type, MessageType::credit);
    // A fifth fragment for the finished event is unexpected, a repeated one before it a duplicate.
    WriteCompletion again;
    again.kind = WriteCompletion::Kind::write_arrived;
    again.imm = WriteImm::encode(a.slot, 0, 0);
    bu.on_completion(ctx, again);
    EXPECT_EQ(ctx.stats_.errors.total(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Shuffles, BuilderUnitOrder, ::testing::Range(0, 6));

TEST(BuilderUnit, DetectsCorruptedPayloadAndWrongEvent) {
    UnitConfig c = small_config();
    c.nodes = 2;
    c.parallel = 2;
    UnitFixture built(c);
    const UnitSetup& setup = built.units;
    MemoryPool slots(c.fragment_stride() * 2, 4);
    slots.set_remote_key(7); // what the executor records when it registers the pool
    BuilderUnit bu(setup, 0, slots);
    RecordingContext ctx;
    bu.on_start(ctx);
    Message a{};
    a.type = MessageType::assign;
    a.event = 5;
    a.slot = 0;
    bu.on_message(ctx, a);
    for (std::uint32_t src = 0; src < 2; ++src) {
        FragmentGenerator gen(src, built.sizer.max_size(), built.sizer.max_size());
        std::vector<std::byte> block(c.fragment_stride());
        gen.prefill(block.data());
        // RU 0 sends event 6 instead of 5; RU 1's payload gets a flipped bit.
        gen.stamp(block.data(), src == 0 ? 6 : 5, built.sizer.size(5, src));
        if (src == 1) block[100] ^= std::byte{1};
        std::memcpy(slots.data() + slots.offset_of(0) + src * c.fragment_stride(), block.data(), built.sizer.size(5, src));
        WriteCompletion w;
        w.kind = WriteCompletion::Kind::write_arrived;
        w.imm = WriteImm::encode(0, 0, src);
        w.offset = slots.offset_of(0) + src * c.fragment_stride();
        w.length = built.sizer.size(5, src);
        bu.on_completion(ctx, w);
    }
    EXPECT_EQ(ctx.stats_.errors.bad_header, 1u);
    EXPECT_EQ(ctx.stats_.errors.bad_payload, 1u);
}

// A transport that does not move the bytes (the simulator) hands each write's first 64 B over
// with its completion: the BU checks the header there and never reads or writes its slots; in
// PUSH a fragment that lands before its event is known is kept where it would have landed and
// checked when the assignment comes.
TEST(BuilderUnit, ChecksHeadersHandedOverWithTheCompletion) {
    for (Protocol protocol : {Protocol::pull, Protocol::push}) {
        UnitConfig c = small_config(protocol);
        c.nodes = 2;
        c.verify = Verify::header;
        UnitFixture built(c);
        MemoryPool slots(c.fragment_stride() * 2, 4);
        slots.set_remote_key(7);
        BuilderUnit bu(built.units, 0, slots);
        EXPECT_TRUE(bu.takes_write_heads());
        RecordingContext ctx;
        bu.on_start(ctx);
        auto head_of = [&](std::uint32_t src, std::uint64_t stamped) { return stamped_head(built, src, stamped); };
        auto land = [&](std::uint32_t src, const std::vector<std::byte>& head) {
            WriteCompletion w;
            w.kind = WriteCompletion::Kind::write_arrived;
            w.imm = WriteImm::encode(0, 0, src);
            w.offset = slots.offset_of(0) + src * c.fragment_stride();
            w.length = built.sizer.size(5, src);
            w.head = head.data();
            w.head_bytes = 64;
            bu.on_completion(ctx, w);
        };
        Message a{};
        a.type = MessageType::assign;
        a.event = 5;
        a.slot = 0;
        const auto good = head_of(1, 5), wrong = head_of(0, 6); // RU 0 stamps event 6
        if (protocol == Protocol::push) land(0, wrong); // before the assignment
        bu.on_message(ctx, a);
        if (protocol == Protocol::pull) land(0, wrong);
        land(1, good);
        EXPECT_EQ(bu.built(), 1u);
        EXPECT_EQ(ctx.stats_.errors.bad_header, 1u) << ctx.stats_.errors.describe();
        EXPECT_EQ(ctx.stats_.errors.total(), 1u) << ctx.stats_.errors.describe();
        // PULL: the slots were never touched; PUSH: only the early header was kept.
        const std::byte* pool = slots.data();
        const auto written = std::count_if(pool, pool + slots.size(), [](std::byte b) { return b != std::byte{0}; });
        if (protocol == Protocol::pull)
            EXPECT_EQ(written, 0);
        else
            EXPECT_GT(written, 0);
    }
}

// PUSH with fragments in two pieces: a fragment whose header piece lands before its event is
// known and whose other piece lands after has that header checked too (it used to be checked
// only for fragments wholly in at the assignment).
TEST(BuilderUnit, PushChecksTheKeptHeaderOfAFragmentStillArriving) {
    UnitConfig c = small_config(Protocol::push);
    c.nodes = 2;
    c.verify = Verify::header;
    c.data_segments = 2;
    UnitFixture built(c);
    const MessageMix mix(c);
    MemoryPool slots(c.fragment_stride() * 2, 4);
    slots.set_remote_key(7);
    BuilderUnit bu(built.units, 0, slots);
    RecordingContext ctx;
    bu.on_start(ctx);
    auto head_of = [&](std::uint32_t src, std::uint64_t stamped) { return stamped_head(built, src, stamped); };
    const std::vector<std::byte> no_header(64); // a data piece after the first carries none
    auto land = [&](std::uint32_t src, std::uint32_t piece, const std::vector<std::byte>& head) {
        const Piece place = mix.piece(piece, built.sizer.size(5, src));
        WriteCompletion w;
        w.kind = WriteCompletion::Kind::write_arrived;
        w.imm = WriteImm::encode(0, piece, src);
        w.offset = slots.offset_of(0) + src * c.fragment_stride() + place.offset;
        w.length = place.length;
        w.head = head.data();
        w.head_bytes = 64;
        bu.on_completion(ctx, w);
    };
    land(0, 0, head_of(0, 6)); // RU 0 stamps event 6, and its header lands before the assignment
    Message a{};
    a.type = MessageType::assign;
    a.event = 5;
    a.slot = 0;
    bu.on_message(ctx, a);
    land(0, 1, no_header);
    land(1, 0, head_of(1, 5));
    land(1, 1, no_header);
    EXPECT_EQ(bu.built(), 1u);
    EXPECT_EQ(ctx.stats_.errors.bad_header, 1u) << ctx.stats_.errors.describe();
    EXPECT_EQ(ctx.stats_.errors.total(), 1u) << ctx.stats_.errors.describe();
}

TEST(ReadoutUnit, QueuesRequestsWhenEveryBufferIsOnLoan) {
    ReadoutFixture f(small_config(), 3, 2);
    ReadoutUnit& ru = f.ru;
    RecordingContext& ctx = f.ctx;
    for (std::uint64_t e = 0; e < 3; ++e) {
        Message r{};
        r.type = MessageType::request;
        r.event = e;
        r.from_index = 1;
        r.rkey = 9;
        r.offset = 1000 * e;
        ru.on_message(ctx, r);
    }
    ASSERT_EQ(ctx.writes.size(), 2u); // two buffers, the third request waits
    EXPECT_EQ(ctx.writes[0].to.index, 1u);
    EXPECT_EQ(WriteImm::source(ctx.writes[0].imm), 3u);
    f.complete(ctx.writes[0].cookie);
    ASSERT_EQ(ctx.writes.size(), 3u);
    EXPECT_EQ(ctx.writes[2].offset, 2000u);
    EXPECT_EQ(ctx.stats_.fragments_out, 1u);
    EXPECT_EQ(ctx.stats_.bytes_out, f.built.sizer.size(0, 3));
}

// PUSH with barrel order: RU 2 of 4 writes to BUs 2, 3, 0, 1, whatever order the assignments
// come in. It waits at a BU with no work yet: passing it, as it once did, sent every RU to the
// BU assigned first (BU 0 here), then all together to the next: an incast at every step.
TEST(ReadoutUnit, PushWaitsAtTheBuUnderItsBarrelCursorSoEveryStepIsAPermutation) {
    UnitConfig c = small_config(Protocol::push);
    c.parallel = 1;
    ReadoutFixture f(c, 2, 4);
    ReadoutUnit& ru = f.ru;
    RecordingContext& ctx = f.ctx;
    auto assign = [&](std::uint32_t bu, std::uint64_t event) {
        Message m{};
        m.type = MessageType::push_assign;
        m.event = event;
        m.peer_index = bu;
        m.rkey = 9;
        ru.on_message(ctx, m);
    };
    auto complete_last = [&] { f.complete(ctx.writes.back().cookie); };
    assign(0, 10); // the EM's first credits are BU 0's and BU 1's
    assign(1, 11);
    EXPECT_TRUE(ctx.writes.empty()) << "wrote to BU " << ctx.writes.front().to.index << " before its own first BU, 2";
    assign(2, 12);
    ASSERT_EQ(ctx.writes.size(), 1u);
    EXPECT_EQ(ctx.writes[0].to.index, 2u);
    complete_last(); // the cursor waits at BU 3
    EXPECT_EQ(ctx.writes.size(), 1u);
    assign(3, 13);
    ASSERT_EQ(ctx.writes.size(), 2u);
    complete_last();
    complete_last();
    ASSERT_EQ(ctx.writes.size(), 4u);
    std::vector<std::uint32_t> bus;
    for (const auto& w : ctx.writes) bus.push_back(w.to.index);
    EXPECT_EQ(bus, (std::vector<std::uint32_t>{2, 3, 0, 1}));
}

// Once the EM ends the run it assigns no new events: the cursor then passes BUs without work
// (here 2 events for 4 BUs: BUs 2 and 3 never get one), so what is assigned is written and the
// run ends. The EM of a PUSH run tells every RU so.
TEST(ReadoutUnit, PushPassesBusWithoutWorkOnceTheEmEndsTheRun) {
    UnitConfig c = small_config(Protocol::push);
    c.parallel = 1;
    c.events = 2;
    UnitFixture built(c);
    EventManager em(built.units);
    RecordingContext em_ctx;
    em.on_message(em_ctx, credit_from(0, 0));
    em.on_message(em_ctx, credit_from(1, 0));
    ASSERT_TRUE(em.finished());

    ReadoutFixture f(c, 2, 4);
    ReadoutUnit& ru = f.ru;
    RecordingContext& ctx = f.ctx;
    std::uint32_t ends_to_rus = 0;
    for (const auto& [to, m] : em_ctx.sent) {
        if (to.role != Role::readout) continue;
        ends_to_rus += m.type == MessageType::end;
        if (to.index == 2) ru.on_message(ctx, m); // the assignments, then the end
        if (to.index == 2 && m.type == MessageType::push_assign) {
            EXPECT_TRUE(ctx.writes.empty()) << "passed BU 2 before the end";
        }
    }
    EXPECT_EQ(ends_to_rus, 4u);
    ASSERT_EQ(ctx.writes.size(), 1u);
    EXPECT_EQ(ctx.writes[0].to.index, 0u);
    f.complete(ctx.writes[0].cookie);
    ASSERT_EQ(ctx.writes.size(), 2u);
    EXPECT_EQ(ctx.writes[1].to.index, 1u);
    EXPECT_EQ(ctx.stats_.errors.total(), 0u) << ctx.stats_.errors.describe();
}

TEST(BuilderUnit, StaggeredBarrelStartsCreditKAtRuPlusKNOverCAndEveryStepIsAPermutation) {
    UnitConfig c = small_config();
    c.nodes = 8;
    c.credits = 4;
    c.parallel = 1;
    c.barrel_start = BarrelStart::staggered;
    UnitFixture built(c);
    // first[b][slot]: the RU BU b asks first for the event on that slot.
    std::vector<std::vector<std::uint32_t>> first(8, std::vector<std::uint32_t>(4));
    for (std::uint32_t b = 0; b < 8; ++b) {
        MemoryPool slots(c.fragment_stride() * c.nodes, 8);
        BuilderUnit bu(built.units, b, slots);
        RecordingContext ctx;
        bu.on_start(ctx);
        for (std::uint32_t slot = 0; slot < 4; ++slot) {
            Message a{};
            a.type = MessageType::assign;
            a.event = 100 + slot;
            a.slot = slot;
            bu.on_message(ctx, a);
        }
        for (auto& [to, m] : ctx.sent)
            if (m.type == MessageType::request) first[b][m.slot] = to.index;
        for (std::uint32_t slot = 0; slot < 4; ++slot) EXPECT_EQ(first[b][slot], (b + slot * 2) % 8) << "BU " << b << " slot " << slot;
    }
    for (std::uint32_t slot = 0; slot < 4; ++slot) {
        std::set<std::uint32_t> rus;
        for (std::uint32_t b = 0; b < 8; ++b) rus.insert(first[b][slot]);
        EXPECT_EQ(rus.size(), 8u) << "slot " << slot << ": the BUs' first requests are not a permutation";
    }
}

// PULL without EM under failures (event_stream.hpp, class_delivery.hpp).
TEST(EventStream, OwnClassThenALostBusRoundsByPositionInIdOrder) {
    evb::EventStream s(1, 4, 40); // BU 1 of 4, events below 40: 1, 5, 9, ...
    std::vector<std::uint64_t> got;
    for (int i = 0; i < 3; ++i) {
        got.push_back(s.peek()->event);
        s.pop();
    }
    EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 5, 9}));
    // BU 2 lost; reports: delivered below round 1, asked below round 3; this BU is position 1 of
    // 3 survivors: rounds 2, 5, 8 of class 2 = events 10, 22, 34; round 2 is re-assigned.
    s.take_over(2, 1, 3, 1, 3);
    std::vector<std::pair<std::uint64_t, bool>> next;
    while (auto n = s.peek()) {
        next.emplace_back(n->event, n->reassigned);
        s.pop();
    }
    EXPECT_EQ(next,
              (std::vector<std::pair<std::uint64_t, bool>>{{10, true},
                                                           {13, false},
                                                           {17, false},
                                                           {21, false},
                                                           {22, false},
                                                           {25, false},
                                                           {29, false},
                                                           {33, false},
                                                           {34, false},
                                                           {37, false}}));
    EXPECT_EQ(s.events_below(2, 1), 1u);
    EXPECT_EQ(s.events_below(2, 100), 10u); // class 2 has 10 events below 40
}

TEST(ClassDelivery, BelowAdvancesOnlyOverRoundsWrittenWithoutAGap) {
    evb::ClassDelivery d(2);
    d.asked(1, 0);
    d.asked(1, 2);
    d.written(1, 2); // a later round first
    EXPECT_EQ(d.below(1), 0u);
    d.written(1, 0);
    EXPECT_EQ(d.below(1), 1u); // round 1 not yet written
    d.written(1, 1);
    EXPECT_EQ(d.below(1), 3u);
    EXPECT_EQ(d.asked_below(1), 3u);
    EXPECT_EQ(d.below(0), 0u);
}
