// Fabrics whose links run at different rates (HDR between switches, EDR to hosts; a slower link
// in a path): the widths and speeds a dump names, the analytic bottleneck of a stream in flit and
// packet mode, and a single packet's cut-through time against a flit-by-flit recurrence.
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/engine/fabric_sim.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/dump_error.hpp"
#include "netsim/fabric/link_rate.hpp"
#include "netsim_test_apps.hpp"
#include "netsim/engine/traffic_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace evb;
using namespace evb::netsim;
using namespace evb::literals;
using evb::test::checked;
using evb::test::Recorder;

namespace {

// host0 - sw0 - sw1 - host1, the three cables of `kinds`.
Fabric chain(const std::vector<std::string>& kinds) {
    Fabric f;
    Topology& t = f.topology;
    auto h0 = t.add_device(DeviceKind::host, "host0", 1), h1 = t.add_device(DeviceKind::host, "host1", 1);
    auto s0 = t.add_device(DeviceKind::switch_, "sw0", 2), s1 = t.add_device(DeviceKind::switch_, "sw1", 2);
    const PortRef ends[3][2] = {{{h0, 0}, {s0, 0}}, {{s0, 1}, {s1, 0}}, {{s1, 1}, {h1, 0}}};
    for (std::size_t i = 0; i < 3; ++i) {
        t.connect(ends[i][0], ends[i][1]);
        t.set_link_kind(ends[i][0], kinds.at(i));
        t.set_link_kind(ends[i][1], kinds.at(i));
    }
    t.assign_lids();
    t.assign_levels();
    f.routing = route(t, RoutingEngine::minhop);
    return f;
}

// Two leaves of `hosts` hosts each under one spine: hosts on `host_kind`, the two up-links on
// `up_kind`.
Fabric two_leaves(std::uint32_t hosts, const std::string& host_kind, const std::string& up_kind) {
    Fabric f;
    Topology& t = f.topology;
    std::vector<std::uint32_t> host;
    for (std::uint32_t h = 0; h < 2 * hosts; ++h) host.push_back(t.add_device(DeviceKind::host, "host" + std::to_string(h), 1));
    auto spine = t.add_device(DeviceKind::switch_, "spine", 2, 1);
    for (std::uint32_t l = 0; l < 2; ++l) {
        auto leaf = t.add_device(DeviceKind::switch_, "leaf" + std::to_string(l), hosts + 1);
        for (std::uint32_t h = 0; h < hosts; ++h) {
            t.connect({host[l * hosts + h], 0}, {leaf, h});
            t.set_link_kind({host[l * hosts + h], 0}, host_kind);
            t.set_link_kind({leaf, h}, host_kind);
        }
        t.connect({leaf, hosts}, {spine, l});
        t.set_link_kind({leaf, hosts}, up_kind);
        t.set_link_kind({spine, l}, up_kind);
    }
    t.assign_lids();
    t.assign_levels();
    f.routing = route(t, RoutingEngine::minhop);
    return f;
}

// When the last byte of one packet of `wire` bytes reaches host1 along `gbps` (one rate per
// cable), flit by flit: a switch sends flit i once it is wholly in and the flit before it is
// out (virtual cut-through, nothing else on the fabric, no switch latency).
std::int64_t flit_recurrence_ps(std::uint32_t wire, const std::vector<double>& gbps, std::int64_t link_ps) {
    const std::uint32_t flits = (wire + 63) / 64;
    std::vector<std::int64_t> in(flits, 0); // flit i wholly at the sender of the next cable
    for (double rate : gbps) {
        std::int64_t free = 0;
        for (std::uint32_t i = 0; i < flits; ++i) {
            const std::int64_t time =
                serialisation_ps(std::min<std::uint64_t>(wire, 64ull * (i + 1)), rate) - serialisation_ps(64ull * i, rate);
            free = std::max(free, in[i]) + time;
            in[i] = free + link_ps;
        }
    }
    return in.back();
}

} // namespace

TEST(LinkRate, WidthsAndSpeedsOfInfiniBand) {
    EXPECT_DOUBLE_EQ(*link_data_gbps("4xEDR"), 100.0);
    EXPECT_DOUBLE_EQ(*link_data_gbps("4xHDR"), 200.0);
    EXPECT_DOUBLE_EQ(*link_data_gbps("2xHDR"), 100.0); // HDR100
    EXPECT_DOUBLE_EQ(*link_data_gbps("4xNDR"), 400.0);
    EXPECT_DOUBLE_EQ(*link_data_gbps("4xQDR"), 32.0);
    EXPECT_DOUBLE_EQ(*link_data_gbps("1xSDR"), 2.0);
    EXPECT_NEAR(*link_data_gbps("4xFDR"), 54.545, 1e-3);
    EXPECT_DOUBLE_EQ(*link_data_gbps("12xEDR"), 300.0);
    for (const char* bad : {"4xFOO", "3xEDR", "EDR", "x4EDR", "4x", "4xedr", "04xEDR1"}) EXPECT_FALSE(link_data_gbps(bad)) << bad;
}

TEST(LinkRate, ADumpKeepsEachLinksRateAndRefusesAnUnknownOne) {
    const Fabric f = chain({"4xEDR", "4xHDR", "4xQDR"});
    std::ostringstream text;
    write_ibnetdiscover(f.topology, text);
    std::istringstream in(text.str());
    Topology back = parse_ibnetdiscover(in, "chain.net");
    Routing routing = route(back, RoutingEngine::minhop);
    FabricSim sim(back, routing, SimOptions{});
    EXPECT_EQ(sim.host_link_gbps(0), 100.0);
    EXPECT_EQ(sim.host_link_gbps(1), 32.0);
    EXPECT_EQ(sim.link_rates(), "32 Gb/s x 1, 100 Gb/s x 1, 200 Gb/s x 1");
    SimOptions uniform;
    uniform.topology_rates = false;
    uniform.ib.link_gbps = 50;
    EXPECT_EQ(FabricSim(back, routing, uniform).link_rates(), "50 Gb/s");

    std::string dump = text.str();
    const auto at = dump.find("4xHDR");
    ASSERT_NE(at, std::string::npos);
    dump.replace(at, 5, "4xFOO");
    const auto line = std::count(dump.begin(), dump.begin() + static_cast<std::ptrdiff_t>(at), '\n') + 1;
    std::istringstream bad(dump);
    try {
        parse_ibnetdiscover(bad, "bad.net");
        FAIL() << "an unknown link speed was accepted";
    } catch (const DumpError& e) {
        EXPECT_NE(std::string(e.what()).find("bad.net:" + std::to_string(line) + ": link '4xFOO': not an InfiniBand width"),
                  std::string::npos)
            << e.what();
    }
}

TEST(LinkRate, AStreamRunsAtItsSlowestLinkInFlitAndPacketMode) {
    // Eq. 2.14 at the bottleneck's rate, wherever on the path it is: credits hold the faster
    // links back to the slower one's pace.
    struct Case {
        std::vector<std::string> kinds;
        double bottleneck;
    };
    for (const Case& c :
         {Case{{"4xEDR", "4xQDR", "4xEDR"}, 32}, Case{{"4xQDR", "4xEDR", "4xEDR"}, 32}, Case{{"4xEDR", "4xEDR", "4xQDR"}, 32},
          Case{{"4xHDR", "4xEDR", "4xHDR"}, 100}, Case{{"4xEDR", "4xHDR", "4xEDR"}, 100}}) {
        const Fabric f = chain(c.kinds);
        for (SimMode mode : {SimMode::flit, SimMode::packet}) {
            TrafficSpec t;
            t.pattern = TrafficPattern::shift;
            t.message_bytes = 256 * 1024;
            t.depth = 4;
            auto r = run_traffic(f, checked(mode), t, 20_us, 220_us);
            const double beff = effective_bandwidth_gbps(IbParams{}, t.message_bytes, c.bottleneck);
            const std::string what = c.kinds[0] + "-" + c.kinds[1] + "-" + c.kinds[2] + " " + to_string(mode);
            EXPECT_NEAR(r.rx_gbps[1], beff, 1e-3 * beff) << what;
            EXPECT_NEAR(r.rx_gbps[0], beff, 1e-3 * beff) << what;
        }
    }
}

TEST(LinkRate, HdrUpLinksCarryTwiceTheHostsOfEdrOnes) {
    // Four hosts per leaf all sending to the other leaf share its one up-link: 200 / 4 = 50 Gb/s
    // each on HDR, 100 / 4 = 25 on EDR, and the hosts' own 100 on NDR (400 / 4). One VL per
    // destination: on one VL the far leaf's input from the spine is a FIFO whose head holds it
    // while that packet leaves at 100 Gb/s, so the up-link could never carry more than 100.
    struct Case {
        const char* up;
        double per_host;
    };
    for (const Case& c : {Case{"4xEDR", 25}, Case{"4xHDR", 50}, Case{"4xNDR", 100}}) {
        const Fabric f = two_leaves(4, "4xEDR", c.up);
        for (SimMode mode : {SimMode::flit, SimMode::packet}) {
            TrafficSpec t;
            t.pattern = TrafficPattern::shift;
            t.shift = 4;
            t.message_bytes = 64 * 1024;
            t.depth = 4;
            SimOptions o = checked(mode);
            o.ib.traffic_vls = 4;
            auto r = run_traffic(f, o, t, 30_us, 230_us);
            const double expected = effective_bandwidth_gbps(IbParams{}, t.message_bytes, c.per_host);
            EXPECT_NEAR(r.effective_gbps, effective_bandwidth_gbps(IbParams{}, t.message_bytes, 100), 1e-9);
            EXPECT_NEAR(r.rx_avg, expected, 0.01 * expected) << c.up << " " << to_string(mode);
            EXPECT_NEAR(r.rx_min, expected, 0.03 * expected) << c.up << " " << to_string(mode);
        }
    }
}

TEST(LinkRate, OnePacketCutsThroughAsFlitByFlit) {
    // Flit mode is the reference; packet mode must give the same time for one packet on every
    // mix of rates, including a slow link before fast ones, where the fast output has to wait
    // for the packet's last flit.
    const std::vector<std::vector<std::string>> mixes = {{"4xEDR", "4xEDR", "4xEDR"}, {"4xQDR", "4xEDR", "4xHDR"},
                                                         {"4xHDR", "4xEDR", "4xQDR"}, {"4xEDR", "4xQDR", "4xNDR"},
                                                         {"4xFDR", "4xHDR", "4xEDR"}, {"4xNDR", "4xQDR", "4xEDR"}};
    for (const auto& kinds : mixes) {
        const Fabric f = chain(kinds);
        std::vector<double> gbps;
        for (const auto& k : kinds) gbps.push_back(*link_data_gbps(k));
        for (std::uint64_t bytes : {4096ull, 100ull, 1000ull}) {
            const auto wire = static_cast<std::uint32_t>(bytes + 26);
            const std::int64_t expected = flit_recurrence_ps(wire, gbps, 170'000);
            for (SimMode mode : {SimMode::flit, SimMode::packet}) {
                FabricSim sim(f.topology, f.routing, checked(mode));
                Recorder app;
                app.posts = {{0, 1, bytes}};
                sim.run(app, Picoseconds::max());
                ASSERT_EQ(app.done.size(), 1u);
                EXPECT_EQ(app.done[0].delivered.count(), expected)
                    << kinds[0] << "-" << kinds[1] << "-" << kinds[2] << " " << bytes << " B " << to_string(mode);
                sim.verify_quiescent();
            }
        }
    }
}

TEST(LinkRate, PacketModeEqualsFlitModeOnALoadedMixedRateTree) {
    // The measured difference between the two modes under contention: hosts on EDR, a slower
    // (QDR) or faster (HDR) core, random and linear-shift traffic, on the k = 4 tree.
    struct Case {
        const char* host;
        const char* core;
        TrafficPattern pattern;
    };
    for (const Case& c : {Case{"4xEDR", "4xQDR", TrafficPattern::random}, Case{"4xHDR", "4xEDR", TrafficPattern::linear},
                          Case{"4xFDR", "4xHDR", TrafficPattern::random}}) {
        FabricOptions fo;
        fo.tree.k = 4;
        fo.host_links = c.host;
        fo.switch_links = c.core;
        const Fabric f = build_fabric(fo);
        TrafficSpec t;
        t.pattern = c.pattern;
        t.message_bytes = 64 * 1024;
        TrafficRunResult r[2];
        for (SimMode mode : {SimMode::flit, SimMode::packet}) {
            SimOptions o = checked(mode);
            o.ib.traffic_vls = 4;
            r[mode == SimMode::packet] = run_traffic(f, o, t, 20_us, 150_us);
        }
        const std::string what = std::string(c.host) + " hosts, " + c.core + " core, " + to_string(c.pattern);
        EXPECT_NEAR(r[1].aggregate_gbps, r[0].aggregate_gbps, 1e-3 * r[0].aggregate_gbps) << what;
        EXPECT_NEAR(r[1].message_latency.mean_us(), r[0].message_latency.mean_us(), 1e-3 * r[0].message_latency.mean_us()) << what;
        EXPECT_GT(r[0].aggregate_gbps, 0) << what;
    }
}
