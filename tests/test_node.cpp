// Node hosts whatever list of units it is given: a unit the event builder does not know (here a
// probe that announces its pool, writes into its peer's and arms a timer) plugs in without
// editing Node, over a real transport (local). Completions reach the unit that caused them: the
// write's cookie comes back untouched to the writer, the arrival lands at the receiving unit.
#include "drivers/local/local_driver.hpp"
#include "transport_world.hpp"
#include "core/log.hpp"
#include "exec/node.hpp"
#include "exec/reactor.hpp"
#include "scripted_transport.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

using namespace evb;
using namespace evb::literals;
using evb::test::ScriptedTransport;
using evb::test::TransportWorld;

namespace {

class ProbeUnit final : public Unit {
public:
    ProbeUnit(std::uint32_t self, MemoryPool& pool) : self_(self), pool_(pool) {}
    void on_start(Context& ctx) override {
        if (self_ == 1) { // the receiver tells the writer where to write, as a BU's credit does
            Message m{};
            m.type = MessageType::credit;
            m.rkey = pool_.remote_key();
            m.offset = pool_.offset_of(2);
            ctx.send({Role::builder, 0}, m);
        }
        ctx.arm_timer(ctx.now() + 1_us, 7);
    }
    void on_message(Context& ctx, const Message& m) override {
        ++messages;
        from = m.from_index;
        std::memset(pool_.block(1), 0xA5, pool_.block_size());
        ctx.write({Role::builder, 1},
                  {.pool = pool_,
                   .block = 1,
                   .length = 100,
                   .rkey = m.rkey,
                   .remote_offset = m.offset + 8,
                   .imm = 0x12345,
                   .cookie = cookie_sent});
    }
    void on_completion(Context&, const WriteCompletion& c) override {
        if (c.kind == WriteCompletion::Kind::write_done) {
            cookie_back = c.cookie;
        } else {
            arrived = c;
            landed = pool_.block(2)[8] == std::byte{0xA5} && pool_.block(2)[107] == std::byte{0xA5} &&
                pool_.block(2)[108] == std::byte{0} && pool_.block(2)[7] == std::byte{0};
        }
    }
    void on_timer(Context&, TimerId id) override { timer = id; }
    bool finished() const override { return self_ == 0 ? cookie_back != 0 : arrived.length != 0; }
    std::vector<MemoryPool*> pools() override { return {&pool_}; }
    bool receives_writes() const override { return true; }

    static constexpr std::uint64_t cookie_sent = 0xFEDCBA9876543210ull; // every bit is the unit's own
    int messages = 0;
    std::uint32_t from = UINT32_MAX;
    std::uint64_t cookie_back = 0;
    WriteCompletion arrived{};
    bool landed = false;
    TimerId timer = 0;

private:
    std::uint32_t self_;
    MemoryPool& pool_;
};

// Writes to rank 1 at the start, and to rank 2 on each message; counts the completions of each cookie.
class CountingWriter final : public Unit {
public:
    explicit CountingWriter(MemoryPool& pool) : pool_(pool) {}
    void on_start(Context& ctx) override { ctx.write({Role::builder, 1}, {.pool = pool_, .length = 64, .rkey = 1, .cookie = 42}); }
    void on_message(Context& ctx, const Message&) override {
        ctx.write({Role::builder, 2}, {.pool = pool_, .length = 64, .rkey = 1, .cookie = 43});
    }
    void on_completion(Context&, const WriteCompletion& c) override {
        ++completions[c.cookie];
        if (c.dropped) ++dropped[c.cookie];
    }
    bool finished() const override { return false; }
    std::vector<MemoryPool*> pools() override { return {&pool_}; }
    std::map<std::uint64_t, int> completions, dropped;

private:
    MemoryPool& pool_;
};

// A credit from builder `rank` (on rank `rank`), as the transport hands it to the node.
Completion credit_from_builder(std::uint32_t rank) {
    Completion c;
    c.kind = Completion::Kind::message;
    c.peer = rank;
    Message m{};
    m.type = MessageType::credit;
    m.to = Role::builder;
    m.from = Role::builder;
    m.from_index = rank;
    std::memcpy(c.command.data(), &m, sizeof m);
    return c;
}

} // namespace

// Failover on verbs showed "1 unexpected" now and then: in one poll batch the lost peer's write
// completed after the loss retired it, its id was freed, and a message made the unit write again
// with the same id, so the dropped notice went to the new write (its real completion then came a
// second time) and the first write never finished. Each write must finish exactly once.
TEST(Node, AWriteRetiredByALossFinishesOnceEvenWhenItsCompletionComesFirst) {
    ScriptedTransport transport;
    UnitsOfRank units;
    units.pools.push_back(std::make_unique<MemoryPool>(4096, 1));
    auto writer = std::make_unique<CountingWriter>(*units.pools.back());
    CountingWriter& w = *writer;
    units.units.push_back({{Role::builder, 0}, std::move(writer)});
    Layout layout(3, 1, false, EmPlacement::rank0);
    Node node(std::move(units), layout, transport, logger("test"));
    node.survive_failures(true);
    Reactor reactor;
    reactor.add(node);
    node.start();
    ASSERT_EQ(transport.writes.size(), 1u);
    Completion lost;
    lost.kind = Completion::Kind::peer_lost;
    lost.peer = 1;
    lost.error = "test";
    Completion first_done;
    first_done.kind = Completion::Kind::write_done;
    first_done.peer = 1;
    first_done.cookie = transport.writes[0].second;
    const Completion message = credit_from_builder(2);
    transport.script = {lost, first_done, message};
    reactor.run_once(1_us);
    ASSERT_EQ(transport.writes.size(), 2u);
    Completion second_done;
    second_done.kind = Completion::Kind::write_done;
    second_done.peer = 2;
    second_done.cookie = transport.writes[1].second;
    transport.script = {second_done};
    reactor.run_once(2_us);
    reactor.run_once(3_us);
    EXPECT_EQ(w.completions[42], 1);
    EXPECT_EQ(w.dropped[42], 1); // its peer was lost: the unit hears it dropped, as when the notice comes first
    EXPECT_EQ(w.completions[43], 1);
    EXPECT_EQ(w.dropped[43], 0);
    EXPECT_EQ(node.stats().errors.unexpected, 0u);
    EXPECT_FALSE(node.failure());
}

// The verbs peer-loss test failed once in CI, and this race is the likely cause (it would not come
// back in 15 runs under load): in one poll batch a completion made the unit write to the dead
// rank, whose post failed before the loss notice behind it was handled, and the run ended with
// "posting to rank 1 failed" instead of the line README promises for a lost peer.
TEST(Node, APostThatFailsBeforeTheLossNoticeEndsTheRunWithTheLostConnectionLine) {
    ScriptedTransport transport;
    transport.refused = 2;
    UnitsOfRank units;
    units.pools.push_back(std::make_unique<MemoryPool>(4096, 1));
    units.units.push_back({{Role::builder, 0}, std::make_unique<CountingWriter>(*units.pools.back())});
    Layout layout(3, 1, false, EmPlacement::rank0);
    Node node(std::move(units), layout, transport, logger("test"));
    Reactor reactor;
    reactor.add(node);
    node.start();
    const Completion message = credit_from_builder(2);
    Completion lost;
    lost.kind = Completion::Kind::peer_lost;
    lost.peer = 2;
    lost.error = "rank 2: disconnected";
    transport.script = {message, lost};
    reactor.run_once(1_us);
    ASSERT_TRUE(node.failure());
    EXPECT_EQ(*node.failure(), "lost connection to rank 2: posting failed: connection to rank 2: disconnected");
}

// A driver's peer_lost says "rank N: why"; the line names the rank itself. Before, a silent EM over
// ofi read "lost the event manager (rank 0: rank 0: sent nothing for 1 s (--heartbeat))".
TEST(Node, ALossLineNamesTheRankOnce) {
    for (const bool em_lost : {false, true}) {
        ScriptedTransport transport;
        transport.self = 1; // rank 1 hears of rank 0 (the EM's) or rank 2
        UnitsOfRank units;
        units.pools.push_back(std::make_unique<MemoryPool>(4096, 1));
        units.units.push_back({{Role::builder, 0}, std::make_unique<CountingWriter>(*units.pools.back())});
        Layout layout(3, 1, true, EmPlacement::rank0); // the EM on rank 0
        Node node(std::move(units), layout, transport, logger("test"));
        node.survive_failures(true);
        Reactor reactor;
        reactor.add(node);
        node.start();
        Completion lost;
        lost.kind = Completion::Kind::peer_lost;
        lost.peer = em_lost ? 0 : 2;
        const std::string error = "rank " + std::to_string(lost.peer) + ": sent nothing for 1 s (--heartbeat)";
        lost.error = error.c_str();
        transport.script = {lost};
        reactor.run_once(1_us);
        if (em_lost) {
            ASSERT_TRUE(node.failure());
            EXPECT_EQ(*node.failure(),
                      "lost the event manager (rank 0: sent nothing for 1 s (--heartbeat)); the run cannot go on without it");
        } else {
            ASSERT_EQ(node.stats().losses.size(), 1u);
            EXPECT_EQ(node.stats().losses[0].how, "sent nothing for 1 s (--heartbeat)");
        }
    }
}

TEST(Node, HostsAnyListOfUnitsAndRoutesTheirCompletions) {
    Layout layout(2, 1, false, EmPlacement::rank0);
    auto transports = LocalDriver().make_all(2);
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<ProbeUnit*> probes;
    Reactor reactor;
    for (std::uint32_t r = 0; r < 2; ++r) {
        UnitsOfRank units;
        units.node = r;
        units.pools.push_back(std::make_unique<MemoryPool>(256, 4));
        auto probe = std::make_unique<ProbeUnit>(r, *units.pools.back());
        probes.push_back(probe.get());
        units.units.push_back({{Role::builder, r}, std::move(probe)});
        nodes.push_back(std::make_unique<Node>(std::move(units), layout, *transports[r], logger("test")));
        reactor.add(*nodes.back());
    }
    for (auto& n : nodes) n->start();
    Picoseconds now{};
    for (int pass = 0; pass < 1000 && !reactor.all_finished(); ++pass) reactor.run_once(now += 1_us);
    ASSERT_TRUE(reactor.all_finished());
    ASSERT_FALSE(reactor.failure());
    EXPECT_EQ(probes[0]->messages, 1);
    EXPECT_EQ(probes[0]->from, 1u); // the executor stamps the sender
    EXPECT_EQ(probes[0]->cookie_back, ProbeUnit::cookie_sent); // the writer gets its own cookie back
    EXPECT_EQ(probes[1]->arrived.kind, WriteCompletion::Kind::write_arrived);
    EXPECT_EQ(probes[1]->arrived.imm, 0x12345u);
    EXPECT_EQ(probes[1]->arrived.length, 100u);
    EXPECT_EQ(probes[1]->arrived.offset, 2u * 256 + 8);
    EXPECT_TRUE(probes[1]->landed); // 100 bytes at offset 8 of block 2, nothing around
    EXPECT_EQ(probes[0]->timer, 7u);
    EXPECT_EQ(probes[1]->timer, 7u);
}

namespace {

// Floods rank 1 with writes (rank 1 never polls, so its queue fills), then sends one command to
// rank 2.
class FloodUnit final : public Unit {
public:
    FloodUnit(MemoryPool& pool, std::uint64_t rank1_key) : pool_(pool), key_(rank1_key) {}
    void on_start(Context& ctx) override {
        for (std::uint32_t i = 0; i < 6000; ++i)
            ctx.write({Role::builder, 1}, {.pool = pool_, .length = 64 * 1024, .rkey = key_, .imm = i, .cookie = i});
        Message m{};
        m.type = MessageType::end;
        ctx.send({Role::builder, 2}, m);
    }
    void on_message(Context&, const Message&) override {}
    void on_completion(Context&, const WriteCompletion&) override {}
    bool finished() const override { return true; }
    std::vector<MemoryPool*> pools() override { return {&pool_}; }

private:
    MemoryPool& pool_;
    std::uint64_t key_;
};

} // namespace

TEST(Node, AFullQueueTowardsOnePeerDoesNotHoldBackTheOthers) {
    std::string why_not;
    auto world = TransportWorld::make("tcp", 3, {}, why_not);
    ASSERT_TRUE(world) << why_not;
    std::vector<std::byte> rank1_memory(64 * 1024);
    const MemoryRegion rank1_region = world->at(1).register_memory(rank1_memory.data(), rank1_memory.size());
    UnitsOfRank units;
    units.pools.push_back(std::make_unique<MemoryPool>(64 * 1024, 1));
    units.units.push_back({{Role::builder, 0}, std::make_unique<FloodUnit>(*units.pools.back(), rank1_region.key)});
    Layout layout(3, 1, false, EmPlacement::rank0);
    Node node(std::move(units), layout, world->at(0), logger("test"));
    Reactor reactor;
    reactor.add(node);
    node.start();
    ASSERT_FALSE(node.finished()) << "tcp took 6000 writes of 64 KiB at once: the queue towards rank 1 never filled";
    // Rank 0 runs, rank 2 polls, rank 1 sleeps: the command to rank 2 must get through.
    Picoseconds now{};
    ASSERT_TRUE(world->drive_only(
        {2},
        [&] {
            reactor.run_once(now += 1_us);
            for (const auto& g : world->got[2])
                if (g.completion.kind == Completion::Kind::message) return true;
            return false;
        },
        30))
        << "posts waiting for rank 1 held back the command to rank 2";
    ASSERT_FALSE(node.failure());
}
