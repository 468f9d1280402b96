// The flit-level IB model against analytic results: eq. 2.13-2.14 (packetisation), eq. 2.16
// (cut-through latency), eq. 2.17 (credit loop buffer), fair sharing under many-to-one, and
// conservation of credits and flits (checks on in every test).
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/engine/event_queue.hpp"
#include "netsim/engine/fabric_sim.hpp"
#include "netsim_test_apps.hpp"
#include "netsim/engine/traffic_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

using namespace evb;
using namespace evb::netsim;
using namespace evb::literals;
using evb::test::checked;
using evb::test::fat_tree;
using evb::test::Recorder;

namespace {

// Two adapters cabled back to back: one link, no switch.
Fabric back_to_back() {
    Fabric f;
    auto a = f.topology.add_device(DeviceKind::host, "host0", 1);
    auto b = f.topology.add_device(DeviceKind::host, "host1", 1);
    f.topology.connect({a, 0}, {b, 0});
    f.topology.assign_lids();
    f.routing.lft.resize(2);
    return f;
}

constexpr SimMode all_modes[] = {SimMode::flit, SimMode::aggregated, SimMode::packet};

} // namespace

TEST(NetsimEngine, OneLinkOneMessageTakesPacketisedWireTimePlusLatency) {
    Fabric f = back_to_back();
    for (SimMode mode : all_modes) {
        for (std::uint64_t bytes : {1ull, 4096ull, 4097ull, 1000000ull}) {
            SimOptions o = checked(mode);
            o.host_latency = HostLatency::fixed(700_ns);
            FabricSim sim(f.topology, f.routing, o);
            Recorder app;
            app.posts = {{0, 1, bytes}};
            sim.run(app, Picoseconds::max());
            ASSERT_EQ(app.done.size(), 1u);
            const std::uint64_t packets = (bytes + 4095) / 4096;
            const std::int64_t wire_ps = static_cast<std::int64_t>(bytes + packets * 26) * 80; // 100 Gb/s: 80 ps/B
            EXPECT_EQ(app.done[0].delivered.count(), 700'000 + wire_ps + 170'000) << to_string(mode) << " " << bytes;
            sim.verify_quiescent();
        }
    }
}

// Port and host counters show what was sent: a packet still on the wire is left out, whether a
// mode counts it flit by flit or (packet mode) as it starts.
TEST(NetsimEngine, CountersLeaveOutThePacketStillOnTheWire) {
    Fabric f = back_to_back();
    const std::int64_t wire = 4122 * 80; // a full packet at 100 Gb/s
    for (SimMode mode : all_modes) {
        SimOptions o = checked(mode);
        o.host_latency = HostLatency::fixed(0_ns);
        FabricSim sim(f.topology, f.routing, o);
        Recorder app;
        app.posts = {{0, 1, 3 * 4096}};
        sim.run(app, Picoseconds(wire + wire / 2)); // halfway through the second packet
        EXPECT_EQ(sim.host_stats()[0].tx_payload, 4096u) << to_string(mode);
        const SimPortStats first = sim.port_stats().at(0);
        ASSERT_EQ(first.device, 0u);
        EXPECT_EQ(first.tx_packets, 2u) << to_string(mode); // counted as each starts
        if (mode == SimMode::packet) {
            EXPECT_EQ(first.tx_bytes, 4122u);
            EXPECT_EQ(first.tx_blocks, 65u);
            EXPECT_EQ(sim.flit_hops(), 65u);
        } else { // and the flits of the second sent by now
            EXPECT_GT(first.tx_bytes, 4122u) << to_string(mode);
            EXPECT_LT(first.tx_bytes, 2 * 4122u) << to_string(mode);
        }
        sim.run(app, Picoseconds(2 * wire)); // the second packet's last flit sent, the third started
        EXPECT_EQ(sim.host_stats()[0].tx_payload, 2 * 4096u) << to_string(mode);
        sim.run(app, Picoseconds::max());
        ASSERT_EQ(app.done.size(), 1u);
        EXPECT_EQ(sim.host_stats()[0].tx_payload, 3 * 4096u) << to_string(mode);
        EXPECT_EQ(sim.host_stats()[1].rx_payload, 3 * 4096u) << to_string(mode);
        EXPECT_EQ(sim.port_stats().at(0).tx_bytes, 3 * 4122u) << to_string(mode);
        EXPECT_EQ(sim.flit_hops(), 3 * 65u) << to_string(mode);
        sim.verify_quiescent();
    }
}

TEST(NetsimEngine, StreamThroughputEqualsEffectiveBandwidth) {
    // Eq. 2.13-2.14: a stream of messages is carried at b * T / (T + 26 B per packet).
    Fabric f = back_to_back();
    for (std::uint64_t size : {512ull, 4096ull, 6000ull, 1ull << 20}) {
        TrafficSpec t;
        t.pattern = TrafficPattern::shift;
        t.message_bytes = size;
        t.messages = (64ull << 20) / size / 8 + 8;
        t.depth = 256; // enough posted to cover the link latency
        auto r = run_traffic(f, checked(), t, 0_ns, 0_ns);
        const double beff = effective_bandwidth_gbps(SimOptions{}.ib, size);
        // The window includes one link latency and the first packet's wait: the only deviation.
        const double busy = static_cast<double>(t.messages * size) * 8 / (beff * 1e9) * 1e12;
        const double predicted = beff * busy / (busy + 170'000);
        EXPECT_NEAR(r.rx_gbps[1], predicted, predicted * 1e-4) << size;
        EXPECT_GT(r.rx_gbps[1], 0.99 * beff) << size;
    }
    EXPECT_NEAR(effective_bandwidth_gbps(SimOptions{}.ib, 4096), 100.0 * 4096 / 4122, 1e-9);
    EXPECT_NEAR(effective_bandwidth_gbps(SimOptions{}.ib, 4097), 100.0 * 4097 / (4097 + 52), 1e-9);
}

TEST(NetsimEngine, SinglePacketLatencyIsCutThroughFormula) {
    // Eq. 2.16 with d = switches crossed: the packet's own serialisation, one flit (one chunk in
    // aggregated mode) per switch before it moves on, the switch and link latencies.
    Fabric two = fat_tree(4), three = fat_tree(2, 3);
    struct Case {
        const Fabric* fabric;
        std::uint32_t dst, switches;
    };
    for (Case c : {Case{&two, 1, 1}, Case{&two, 4, 3}, Case{&three, 15, 5}}) {
        for (SimMode mode : all_modes) {
            for (std::int64_t switch_ns : {0, 90}) {
                SimOptions o = checked(mode);
                o.aggregation = 8;
                o.ib.switch_latency = Picoseconds(switch_ns * 1000);
                FabricSim sim(c.fabric->topology, c.fabric->routing, o);
                Recorder app;
                app.posts = {{0, c.dst, 4096}};
                sim.run(app, Picoseconds::max());
                ASSERT_EQ(app.done.size(), 1u);
                const std::int64_t head_bytes = mode == SimMode::aggregated ? 8 * 64 : 64;
                const std::int64_t expected = 4122 * 80 + c.switches * (head_bytes * 80 + switch_ns * 1000) + (c.switches + 1) * 170'000;
                EXPECT_EQ(app.done[0].delivered.count(), expected) << to_string(mode) << " to " << c.dst << " sw " << switch_ns;
                EXPECT_EQ(sim.packet_latency().count(), 1u);
            }
        }
    }
}

TEST(NetsimEngine, APacketOfMoreThan65535FlitsCrossesSwitchesAtTheCutThroughFormula) {
    // An input queue's entry keeps a packet's need in 16 bits; a larger one (1 MiB MTU in 16 B
    // flits: 65538) is read from the packet. Eq. 2.16 as above, through three switches.
    Fabric f = fat_tree(4);
    for (SimMode mode : {SimMode::aggregated, SimMode::packet}) {
        SimOptions o = checked(mode);
        o.aggregation = 4096;
        o.ib.mtu = 1u << 20;
        o.ib.flit_bytes = 16;
        o.ib.buffer_bytes = 2u << 20;
        ASSERT_GT(o.ib.blocks(o.ib.wire_bytes(o.ib.mtu)), 65535u);
        FabricSim sim(f.topology, f.routing, o);
        Recorder app;
        app.posts = {{0, 4, 1u << 20}, {0, 4, 1u << 20}};
        sim.run(app, Picoseconds::max());
        ASSERT_EQ(app.done.size(), 2u);
        const std::int64_t wire = ((1 << 20) + 26) * 80, head = (mode == SimMode::aggregated ? 4096 * 16 : 16) * 80;
        EXPECT_EQ(app.done[0].delivered.count(), wire + 3 * head + 4 * 170'000) << to_string(mode);
        EXPECT_EQ(app.done[1].delivered.count(), 2 * wire + 3 * head + 4 * 170'000) << to_string(mode);
        sim.verify_quiescent();
    }
}

TEST(NetsimEngine, ManyToOneSharesTheLinkFairly) {
    Fabric f = fat_tree(4);
    for (std::uint32_t n : {2u, 3u}) {
        TrafficSpec t;
        t.pattern = TrafficPattern::many_to_one;
        t.senders = n;
        t.message_bytes = 64 * 1024;
        t.messages = 60;
        auto r = run_traffic(f, checked(), t, 0_ns, 0_ns); // checks: credits >= 0, buffers bounded, all delivered
        const double beff = r.effective_gbps;
        EXPECT_NEAR(r.rx_gbps[0], beff, 0.01 * beff) << n; // the receiver's link at line rate
        for (std::uint32_t s = 1; s <= n; ++s) EXPECT_NEAR(r.tx_gbps[s], beff / n, 0.02 * beff / n) << n << " sender " << s;
        // The bottleneck port stalls its senders: PortXmitWait is non-zero upstream.
        std::int64_t wait = 0;
        for (const auto& p : r.ports) wait += p.xmit_wait_ps;
        EXPECT_GT(wait, 0);
    }
}

// A switch of more than 64 ports keeps its requesters in several words: its round robin must
// run over all of them (ports 64 and up in the second word) as fairly as over one.
TEST(NetsimEngine, ManyToOneSharesTheLinkFairlyOnASwitchOfMoreThan64Ports) {
    constexpr std::uint32_t hosts = 70;
    Fabric f;
    const auto sw = f.topology.add_device(DeviceKind::switch_, "wide", hosts);
    for (std::uint32_t h = 0; h < hosts; ++h)
        f.topology.connect({f.topology.add_device(DeviceKind::host, "host" + std::to_string(h), 1), 0}, {sw, h});
    f.topology.assign_lids();
    f.routing = route(f.topology, RoutingEngine::minhop);
    TrafficSpec t;
    t.pattern = TrafficPattern::many_to_one;
    t.message_bytes = 16 * 1024;
    t.messages = 160; // more than 10 ms can carry: every sender always has a packet waiting
    // Every other host sends to host 0; in 10 ms each gets ~440 packets through. A sender's count
    // is its adapter's, a switch buffer ahead of its grants: the window's edges make a few packets
    // (1%) of difference. A round robin that started from port 0 each time would starve the high ports.
    auto r = run_traffic(f, checked(), t, 50_us, 10_ms);
    const double beff = r.effective_gbps, share = beff / (hosts - 1);
    EXPECT_NEAR(r.rx_gbps[0], beff, 0.01 * beff);
    for (std::uint32_t s = 1; s < hosts; ++s) EXPECT_NEAR(r.tx_gbps[s], share, 0.03 * share) << "sender " << s;
}

TEST(NetsimEngine, BufferBelowCreditLoopLimitsOneStream) {
    // One stream over one link, packets of exactly n = 64 flits. A buffer of a*n + r blocks lets
    // a packet start only when the credits of the packet a places back are home, so the period
    // is ((n - r) t_flit + L) / a with L = link + credit latency (eq. 2.17 with VCT packets).
    Fabric f = back_to_back();
    const double t_flit = 5120, loop = 340'000, n = 64;
    for (std::uint64_t blocks : {64ull, 96ull, 128ull, 130ull, 131ull, 192ull, 1024ull}) {
        SimOptions o = checked();
        o.ib.mtu = 4096 - 26;
        o.ib.buffer_bytes = blocks * 64;
        TrafficSpec t;
        t.pattern = TrafficPattern::shift;
        t.message_bytes = 4070 * 16;
        t.stop = 400_us;
        auto r = run_traffic(f, o, t, 40_us, 400_us);
        const double a = std::floor(static_cast<double>(blocks) / n), rem = static_cast<double>(blocks) - a * n;
        const double fraction = std::min(1.0, a * n * t_flit / ((n - rem) * t_flit + loop));
        EXPECT_NEAR(r.rx_gbps[1] / r.effective_gbps, fraction, 0.005) << blocks << " blocks";
    }
    // Eq. 2.17 for single-flit packets: the credit loop in flits plus one.
    EXPECT_EQ(min_full_rate_buffer_bytes(SimOptions{}.ib), 68u * 64);
}

TEST(NetsimEngine, SameSeedSameResultsBitForBit) {
    Fabric f = fat_tree(4);
    SimOptions o = checked();
    o.host_latency = HostLatency::parse("lognormal:1us:0.3");
    o.seed = 42;
    TrafficSpec t;
    t.pattern = TrafficPattern::random;
    t.message_bytes = 10000;
    t.seed = 42;
    auto a = run_traffic(f, o, t, 0_ns, 30_us);
    auto b = run_traffic(f, o, t, 0_ns, 30_us);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.rx_gbps, b.rx_gbps);
    EXPECT_EQ(a.packet_latency.to_json(), b.packet_latency.to_json());
    o.seed = 43;
    t.seed = 43;
    auto c = run_traffic(f, o, t, 0_ns, 30_us);
    EXPECT_NE(a.rx_gbps, c.rx_gbps);
}

// Credits returned between switches reach their output at the end of the window they were
// returned in (SimPart::window_ps), whether run() is called once or in slices that end anywhere
// in a window: every message arrives at the same picosecond, after the same events, and every
// credit is back at the end.
TEST(NetsimEngine, ARunCutIntoSlicesEndingInsideWindowsIsTheSameRun) {
    Fabric f = fat_tree(4);
    for (SimMode mode : all_modes) {
        SCOPED_TRACE(to_string(mode));
        auto run = [&](Picoseconds slice) {
            FabricSim sim(f.topology, f.routing, checked(mode));
            test::Recorder app;
            const std::uint32_t hosts = sim.hosts();
            for (std::uint32_t i = 0; i < 3 * hosts; ++i) app.posts.emplace_back(i % hosts, (i * 5 + 3) % hosts, 3000 + 1000 * (i % 7));
            std::erase_if(app.posts, [](const auto& p) { return std::get<0>(p) == std::get<1>(p); });
            for (Picoseconds until = slice; !sim.idle() || until == slice; until += slice) sim.run(app, until);
            sim.verify_quiescent();
            std::vector<std::pair<std::uint64_t, std::int64_t>> arrivals;
            for (const SimMessage& m : app.done) arrivals.emplace_back(m.tag, m.delivered.count());
            std::sort(arrivals.begin(), arrivals.end());
            EXPECT_EQ(arrivals.size(), app.posts.size());
            return std::make_pair(arrivals, sim.events());
        };
        const auto whole = run(Picoseconds::from_seconds(1));
        EXPECT_EQ(run(37_ns), whole); // slices of 37 ns end inside the 170 ns windows
        EXPECT_EQ(run(170_ns), whole); // and at their ends
    }
}

TEST(NetsimEngine, HostLatencyDistributions) {
    EXPECT_EQ(HostLatency::parse("fixed:1us").draw(0.3, 0.7), 1_us);
    auto u = HostLatency::parse("uniform:1us:3us");
    EXPECT_EQ(u.draw(0.5, 0), 2_us);
    EXPECT_EQ(u.mean(), 2_us);
    auto l = HostLatency::parse("lognormal:1us:0");
    EXPECT_EQ(l.draw(0.9, 0.1), 1_us);
    const std::string path = ::testing::TempDir() + "pcie.hist";
    {
        std::ofstream out(path);
        out << "# latency weight\n900ns 1\n1100ns 3\n";
    }
    auto h = HostLatency::parse("file:" + path);
    EXPECT_EQ(h.draw(0.1, 0), 900_ns);
    EXPECT_EQ(h.draw(0.5, 0), 1100_ns);
    EXPECT_EQ(h.mean(), 1050_ns);
    for (const char* bad : {"fixed", "uniform:2us:1us", "lognormal:1us:x", "gauss:1us", "file:/nonexistent", "fixed:-1us"})
        EXPECT_THROW(HostLatency::parse(bad), std::invalid_argument) << bad;
}

// A host's latencies are its own stream: what other hosts post, before or in between, does not
// change them (so that hosts simulated apart draw the same as together). Hosts 0, 1 and 2, 3
// share no link on a k = 4 tree.
TEST(NetsimEngine, AHostsLatencyDrawsDoNotDependOnOtherHostsPosts) {
    Fabric f = fat_tree(4);
    SimOptions o = checked();
    o.host_latency = HostLatency::parse("lognormal:1us:0.5");
    auto arrivals_of_host0 = [&](bool others_post) {
        FabricSim sim(f.topology, f.routing, o);
        test::Recorder app;
        for (int i = 0; i < 4; ++i) {
            if (others_post) app.posts.emplace_back(2, 3, 5000);
            app.posts.emplace_back(0, 1, 5000);
        }
        sim.run(app, Picoseconds::max());
        std::vector<std::int64_t> arrivals;
        for (const SimMessage& m : app.done)
            if (m.src == 0) arrivals.push_back(m.delivered.count());
        return arrivals;
    };
    const auto alone = arrivals_of_host0(false);
    ASSERT_EQ(alone.size(), 4u);
    EXPECT_EQ(arrivals_of_host0(true), alone);
}

// RC: a message's sender has its ACK one unloaded crossing of the path back after the last byte
// arrived: per link its latency and a flit's time, per switch its latency; only an app that asks
// for ACKs gets them (each is an event).
TEST(NetsimEngine, AnAckReachesTheSenderOneUnloadedPathBackAfterDelivery) {
    struct Acks : test::Recorder {
        bool wants = true;
        std::vector<SimMessage> acked;
        void acknowledged(FabricSim&, const SimMessage& m) override { acked.push_back(m); }
        bool wants_acks() const override { return wants; }
    };
    const SimOptions o = checked();
    const std::int64_t flit = serialisation_ps(64, 100), per_link = o.ib.link_latency.count() + flit;
    struct Case {
        Fabric fabric;
        std::uint32_t src, dst, links;
    };
    Fabric tree = fat_tree(4);
    const auto last = static_cast<std::uint32_t>(tree.topology.hosts().size() - 1);
    for (Case c : {Case{back_to_back(), 0, 1, 1}, Case{tree, 0, 1, 2}, Case{tree, 0, last, 4}}) {
        SCOPED_TRACE(c.links);
        FabricSim sim(c.fabric.topology, c.fabric.routing, o);
        Acks app;
        app.posts.emplace_back(c.src, c.dst, 10000);
        sim.run(app, Picoseconds::max());
        ASSERT_EQ(app.done.size(), 1u);
        ASSERT_EQ(app.acked.size(), 1u);
        EXPECT_EQ(app.acked[0].tag, app.done[0].tag);
        EXPECT_EQ(app.acked[0].delivered, app.done[0].delivered); // the message as delivered
        EXPECT_EQ(sim.now().count() - app.done[0].delivered.count(), c.links * per_link + (c.links - 1) * o.ib.switch_latency.count());
        sim.verify_quiescent();

        FabricSim quiet(c.fabric.topology, c.fabric.routing, o);
        Acks without;
        without.wants = false;
        without.posts = app.posts;
        quiet.run(without, Picoseconds::max());
        EXPECT_TRUE(without.acked.empty());
        EXPECT_EQ(quiet.events() + 1, sim.events());
    }
}

TEST(NetsimEngine, ImpossibleModelParametersAreRefused) {
    Fabric f = back_to_back();
    auto refuse = [&](auto tweak) {
        SimOptions o;
        tweak(o);
        EXPECT_THROW(FabricSim(f.topology, f.routing, o), std::invalid_argument);
    };
    refuse([](SimOptions& o) { o.ib.buffer_bytes = 0; });
    refuse([](SimOptions& o) { o.ib.buffer_bytes = 4096; }); // below one MTU packet: VCT deadlock
    refuse([](SimOptions& o) { o.ib.vls = 0; });
    refuse([](SimOptions& o) { o.ib.traffic_vls = 5; });
    refuse([](SimOptions& o) { o.ib.link_gbps = 0; });
    refuse([](SimOptions& o) { o.ib.link_gbps = 0.02; }); // a 4 KiB packet takes 1.6 ms: past a credit ramp's 1 ms
    refuse([](SimOptions& o) {
        o.mode = SimMode::aggregated;
        o.aggregation = 0;
    });
    // A forwarding table that names a port its switch does not have: refused before the run,
    // naming it (the run no longer looks up each switch's port count per packet).
    Fabric tree = fat_tree(4);
    const std::uint32_t sw = tree.topology.switches().at(0);
    const std::uint32_t lid = tree.topology.device(tree.topology.hosts().at(0)).lid;
    tree.routing.lft[sw][lid] = 99;
    try {
        FabricSim sim(tree.topology, tree.routing, SimOptions{});
        ADD_FAILURE() << "a table entry to port 100 was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  "routing: " + tree.topology.device(sw).name + " sends LID " + std::to_string(lid) + " to port 100; it has ports 1.." +
                      std::to_string(tree.topology.device(sw).ports.size()));
    }
}

namespace {
// Keeps `depth` messages posted from host 0 to host 1: the link never idles.
struct Stream : SimApp {
    std::uint64_t delivered_count = 0;
    void start(FabricSim& sim) override {
        for (int i = 0; i < 4; ++i) sim.post(0, 1, 64 * 1024, 0);
    }
    void delivered(FabricSim& sim, const SimMessage&) override {
        ++delivered_count;
        sim.post(0, 1, 64 * 1024, 0);
    }
};
} // namespace

TEST(NetsimEngine, CreditRampsAndArrivingPacketsStayBoundedOnALinkThatNeverIdles) {
    Fabric f = back_to_back();
    FabricSim sim(f.topology, f.routing, checked());
    Stream app;
    std::size_t at_1ms = 0;
    sim.run(app, 1_ms);
    at_1ms = sim.ramp_entries();
    sim.run(app, 10_ms);
    // The packets on their way into host 1, kept until their arrival is counted: a few on the
    // link, and past ones counted 8 at a time (never counted, they would be 28 000 by now).
    EXPECT_LE(sim.arriving_entries(), 16u);
    ASSERT_GT(app.delivered_count, 1000u); // ~17 000 packets a millisecond crossed the link
    // The ramps in flight are bounded by the 64 KiB buffer (1024 credit blocks), not by the run.
    const std::size_t bound = 2 * (64 * 1024 / 64) + 64;
    EXPECT_LE(at_1ms, bound);
    EXPECT_LE(sim.ramp_entries(), bound) << "credit ramps grew with the run: " << sim.ramp_entries();
}

namespace {
// Host 0 sends 3 packets each to hosts 2 and 3 from the start, and to host 1 from 100 ns, while
// its first packet is on the wire: a flow that joins before the round robin's place.
struct ThreeFlows : SimApp {
    std::map<std::uint32_t, std::int64_t> done_at; // by destination
    void start(FabricSim& sim) override {
        sim.post(0, 2, 3 * 4096, 0);
        sim.post(0, 3, 3 * 4096, 0);
        sim.set_timer(100_ns, 0, 0);
    }
    void timer(FabricSim& sim, std::uint32_t, std::uint64_t) override { sim.post(0, 1, 3 * 4096, 0); }
    void delivered(FabricSim&, const SimMessage& m) override { done_at[m.dst] = m.delivered.count(); }
};
} // namespace

TEST(NetsimEngine, AnAdapterSendsItsFlowsInRoundRobinAPacketEach) {
    // Packets leave host 0 in the order 2 3 1 2 3 1 2 3 1: the flow to host 1 joined after the
    // one to host 2 was granted, below it, so its turn comes after host 3's. All three share host
    // 0's leaf (one switch, idle outputs), so the messages end one packet's wire time apart.
    Fabric f = fat_tree(4);
    SimOptions o = checked();
    o.host_latency = HostLatency::fixed(0_ns);
    FabricSim sim(f.topology, f.routing, o);
    ThreeFlows app;
    sim.run(app, Picoseconds::max());
    ASSERT_EQ(app.done_at.size(), 3u);
    const std::int64_t wire = 4122 * 80;
    EXPECT_EQ(app.done_at[3] - app.done_at[2], wire);
    EXPECT_EQ(app.done_at[1] - app.done_at[3], wire);
    sim.verify_quiescent();
}

TEST(NetsimEngine, AnAdapterShortOfCreditsForAFullPacketSendsAShortMessageItHolds) {
    // Host 0 holds a long message for host 1 and 100 B for host 2. Its leaf's buffer takes 96
    // blocks: after the first full packet (65) the adapter has 31 credits, too few for the next
    // full packet but enough for the short message (2), which its round robin grants next; the
    // credits of the first packet are not back before the short one is sent.
    Fabric f = fat_tree(4);
    SimOptions o = checked();
    o.host_latency = HostLatency::fixed(0_ns);
    o.ib.buffer_bytes = 96 * 64;
    FabricSim sim(f.topology, f.routing, o);
    Recorder app;
    app.posts = {{0, 1, 10 * 4096}, {0, 2, 100}};
    const std::int64_t full = 4122 * 80, small = 126 * 80; // their times on a 100 Gb/s link
    sim.run(app, Picoseconds(full + small));
    EXPECT_EQ(sim.host_stats()[0].tx_payload, 4096u + 100u);
    sim.run(app, Picoseconds::max());
    ASSERT_EQ(app.done.size(), 2u);
    EXPECT_EQ(app.done[0].bytes, 100u);
    sim.verify_quiescent();
}

// Events come out by time, ties in insertion order, whether they are due at the same instant, a
// few hundred ns ahead or far ahead (timers), with pops (and takes of what is due by a time,
// which leave a later event in place) and pushes interleaved, and with events
// pushed after a look at the earliest (top) that come before it; for slots of 256 ps (all but the
// same instant beyond the wheel), 2 ns and 262 ns (all within it).
TEST(NetsimEngine, EventQueueTakesEventsOutByTimeThenInsertionOrder) {
    for (const std::int64_t span : {0, 400'000, 60'000'000}) {
        SCOPED_TRACE("span " + std::to_string(span) + " ps");
        EventQueue q;
        q.cover(span);
        std::vector<std::pair<std::int64_t, std::uint32_t>> reference; // (time, insertion index)
        std::uint64_t state = 12345;
        auto next = [&state] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return state >> 33;
        };
        std::int64_t now = 0;
        std::uint32_t pushed = 0;
        std::vector<std::pair<std::int64_t, std::uint32_t>> taken;
        for (int round = 0; round < 20000; ++round) {
            if (!q.empty() && next() % 5 == 0) (void)q.top(); // as run() looks past its end
            const int n = static_cast<int>(next() % 4);
            for (int i = 0; i < n; ++i) {
                // The same instant, within a nanosecond, a few hundred ns, and far ahead (timers).
                const std::int64_t deltas[] = {0, static_cast<std::int64_t>(next() % 1024), static_cast<std::int64_t>(next() % 600'000),
                                               static_cast<std::int64_t>(next() % 50'000'000)};
                const std::int64_t t = now + deltas[next() % 4];
                q.push(t, 0, pushed);
                reference.emplace_back(t, pushed++);
            }
            if (!q.empty() && next() % 3 != 0) {
                const std::int64_t top = q.top().time;
                SimEvent e{};
                if (next() % 2) {
                    e = q.pop();
                } else { // as run() takes them: only if due by a time just before, at or after the earliest
                    const std::int64_t until = top - 1 + static_cast<std::int64_t>(next() % 3);
                    ASSERT_EQ(q.pop_due(until, e), until >= top);
                    if (until < top) continue;
                }
                ASSERT_EQ(e.time, top);
                ASSERT_EQ(q.more_now(), !q.empty() && q.top().time == e.time);
                now = e.time;
                taken.emplace_back(e.time, e.a);
            }
        }
        while (!q.empty()) {
            const SimEvent e = q.pop();
            taken.emplace_back(e.time, e.a);
        }
        // Each pop took the earliest of what was queued then; with pushes never before `now`,
        // that is the whole sequence sorted by (time, insertion).
        std::sort(reference.begin(), reference.end());
        EXPECT_EQ(taken, reference);
    }
}

TEST(NetsimEngineDeathTest, TimeGoingBackwardsAborts) {
    EXPECT_DEATH(
        {
            EventQueue q;
            q.push(10'000, 0, 0);
            q.pop();
            q.push(5'000, 0, 0);
        },
        "simulated time went backwards");
}

// The simulator's own tables grow as hosts squared only through the forwarding tables.
TEST(FabricSim, MemoryEstimateIsTheRoutingTablesAndAKibibytePerPort) {
    FabricOptions o;
    o.tree.k = 4;
    const Fabric f = build_fabric(o); // 32 hosts, 12 switches of 8 ports, LIDs 1..44
    EXPECT_EQ(routing_table_bytes(f.topology), 2u * 12 * 45);
    EXPECT_EQ(simulator_bytes(f.topology), 2u * 12 * 45 + 1024 * (32 + 12 * 8));
    EXPECT_EQ(simulator_bytes(f.topology, 3), 2u * 12 * 45 + 3 * 1024 * (32 + 12 * 8)); // each part its own port tables
    FabricOptions limited = o;
    limit_to_simulator(limited, simulator_bytes(f.topology) + 32 * 100 + 32 * 32 * 3, {0, 100, 3, "units"});
    EXPECT_NO_THROW(build_fabric(limited));
    limit_to_simulator(limited, simulator_bytes(f.topology) + 32 * 100 + 32 * 32 * 3 - 1, {0, 100, 3, "units"});
    EXPECT_THROW(build_fabric(limited), std::invalid_argument);
}
