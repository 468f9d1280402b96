// DAQPIPE's micro-benchmarks (paper 003 sec. 3.5): who sends where, that every message is
// checked at its receiver, the bytes each node moves on local and tcp, and the shift scan on the
// simulator phase by phase against the conflict analyser (paper 003 sec. 4).
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "local_run.hpp"
#include "report/phase_table.hpp"
#include "recording_context.hpp"
#include "report/report.hpp"
#include "run_command.hpp"
#include "scheduling/traffic_pattern.hpp"
#include "units/traffic_receiver.hpp"
#include "units/traffic_sender.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

using namespace evb;
using namespace evb::test;

TEST(TrafficPattern, EachBenchmarkSendsWhereDaqpipeDoes) {
    TrafficPattern one(Benchmark::one_to_one, 5, 2);
    for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(one.target(i, 7, 0), (i + 2) % 5);
    TrafficPattern many(Benchmark::many_to_one, 5, 0);
    EXPECT_FALSE(many.target(0, 0, 0));
    for (std::uint32_t i = 1; i < 5; ++i) EXPECT_EQ(many.target(i, 3, 0), 0u);
    TrafficPattern gather(Benchmark::gather, 5, 0);
    for (std::uint64_t k = 0; k < 12; ++k)
        for (std::uint32_t i = 0; i < 5; ++i) EXPECT_EQ(gather.target(i, k, 0), k % 5); // every sender at the same node
    EXPECT_FALSE(gather.commanded());
    EXPECT_TRUE(TrafficPattern(Benchmark::gather_cmd, 5, 0).commanded());
    TrafficPattern scan(Benchmark::shift_scan, 5, 0);
    for (std::uint32_t phase = 0; phase < 5; ++phase)
        for (std::uint32_t i = 0; i < 5; ++i) {
            EXPECT_EQ(scan.target(i, 0, phase), (i + phase) % 5);
            EXPECT_EQ(scan.shift_between(i, (i + phase) % 5), phase);
        }
    EXPECT_FALSE(scan.target(0, 0, 5));
}

namespace {

Config benchmark_config(Benchmark b, std::uint32_t nodes, std::uint64_t messages) {
    Config c;
    c.benchmark = b;
    c.nodes = nodes;
    c.fragment_size = 4096;
    c.size_distribution = SizeDistribution::uniform;
    c.events = messages;
    c.duration = Picoseconds(0);
    c.verify = Verify::full;
    c.quiet = true;
    return c;
}

// What receiver r must get: the messages every sender sends it, with their sizes.
struct Expected {
    std::vector<std::uint64_t> messages, bytes;
};

Expected expected_traffic(const Config& c) {
    FragmentSizer sizer(c);
    TrafficPattern pattern(c.benchmark, c.nodes, c.shift);
    Expected e{std::vector<std::uint64_t>(c.nodes, 0), std::vector<std::uint64_t>(c.nodes, 0)};
    for (std::uint32_t i = 0; i < c.nodes; ++i) {
        std::vector<std::uint64_t> seq(c.nodes, 0);
        for (std::uint64_t k = 0; k < c.events; ++k) {
            std::uint32_t phase = c.phase_messages ? static_cast<std::uint32_t>(k / c.phase_messages) : 0;
            auto to = pattern.target(i, k, phase);
            if (!to) break;
            ++e.messages[*to];
            e.bytes[*to] += sizer.size(seq[*to]++, i) + c.meta_bytes();
        }
    }
    return e;
}

void expect_traffic(const RunResult& r, const Config& c) {
    ASSERT_FALSE(r.failure) << *r.failure;
    Expected e = expected_traffic(c);
    NodeStats sys = r.system();
    EXPECT_EQ(sys.errors.total(), 0u) << sys.errors.describe();
    for (std::uint32_t n = 0; n < c.nodes; ++n) {
        EXPECT_EQ(r.nodes[n].fragments_in, e.messages[n]) << "node " << n;
        EXPECT_EQ(r.nodes[n].bytes_in, e.bytes[n]) << "node " << n;
        EXPECT_EQ(r.nodes[n].writes_in, e.messages[n] * (c.data_segments + c.meta_segments)) << "node " << n;
    }
    EXPECT_EQ(sys.bytes_out, sys.bytes_in);
}

} // namespace

class MicroBenchmarkOnLocal : public ::testing::TestWithParam<Benchmark> {};

TEST_P(MicroBenchmarkOnLocal, EveryNodeReceivesExactlyItsMessagesAllVerified) {
    Config c = benchmark_config(GetParam(), 5, 203);
    c.shift = 3;
    c.in_flight = 3;
    if (c.benchmark == Benchmark::gather_cmd_meta) {
        c.meta_segments = 1;
        c.meta_size = 10240;
    }
    validate(c);
    RunResult r = run_local(c);
    expect_traffic(r, c);
    // Commanded exchanges measure command-to-data latency, one per message.
    bool commanded = TrafficPattern(c.benchmark, 5, 0).commanded();
    EXPECT_EQ(r.system().latency.count(), commanded ? r.system().fragments_in : 0u);
}

INSTANTIATE_TEST_SUITE_P(Each, MicroBenchmarkOnLocal,
                         ::testing::Values(Benchmark::one_to_one, Benchmark::many_to_one, Benchmark::gather, Benchmark::gather_cmd,
                                           Benchmark::gather_cmd_meta),
                         [](const auto& i) {
                             std::string n = to_string(i.param);
                             for (auto& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

TEST(MicroBenchmark, ShiftScanByMessagesVisitsEveryShiftWithEveryNode) {
    Config c = benchmark_config(Benchmark::shift_scan, 4, 0);
    c.phase_messages = 12;
    c.events = 4 * 12; // what expected_traffic walks: N phases of 12
    c.size_distribution = SizeDistribution::fixed;
    validate(c);
    RunResult r = run_local(c);
    expect_traffic(r, c);
    auto rows = phase_rows(r);
    ASSERT_EQ(rows.size(), 4u);
    for (const auto& row : rows) {
        EXPECT_EQ(row.messages, 4u * 12) << "shift " << row.shift; // every node got 12 in every phase
        EXPECT_EQ(row.short_nodes, 0u);
        EXPECT_GT(row.min_gbps, 0);
        EXPECT_LE(row.min_gbps, row.avg_gbps);
        EXPECT_LE(row.avg_gbps, row.max_gbps);
    }
    for (const auto& n : r.nodes)
        for (std::uint32_t s = 0; s < 4; ++s)
            EXPECT_EQ(n.phases.at(s).rate_messages, 12u - c.in_flight) << "node " << n.node << " shift " << s;
}

TEST(MicroBenchmark, AReceiverCountsARepeatedMessageAsADuplicateAndAFlippedBitAsBadPayload) {
    Config c = benchmark_config(Benchmark::one_to_one, 2, 10);
    c.shift = 1;
    c.in_flight = 2;
    FragmentSizer sizer(c);
    auto schedule = make_schedule(c.scheduling, 1);
    UnitSetup setup{c, sizer, *schedule};
    MemoryPool send_pool(c.fragment_stride(), c.in_flight), slots(c.fragment_stride(), c.receive_slots() * c.nodes);
    slots.set_remote_key(3);
    TrafficSender sender(setup, 0, send_pool);
    TrafficReceiver receiver(setup, 1, slots);
    RecordingContext sctx, rctx;
    receiver.on_start(rctx);
    for (auto [to, m] : rctx.sent)
        if (to.index == 0) {
            m.from = Role::builder; // what the executor fills in
            m.from_index = 1;
            sender.on_message(sctx, m);
        }
    ASSERT_EQ(sctx.writes.size(), 2u); // w = 2 in flight
    auto deliver = [&](const RecordedWrite& w, bool flip) {
        std::memcpy(slots.data() + w.offset, send_pool.block(w.block) + w.block_offset, w.length);
        if (flip) slots.data()[w.offset + 200] ^= std::byte{1};
        WriteCompletion arrived;
        arrived.kind = WriteCompletion::Kind::write_arrived;
        arrived.imm = w.imm;
        arrived.offset = w.offset;
        arrived.length = w.length;
        receiver.on_completion(rctx, arrived);
    };
    deliver(sctx.writes[0], false);
    EXPECT_EQ(rctx.stats_.fragments_in, 1u);
    deliver(sctx.writes[0], false); // message 0 again, into the slot it had
    EXPECT_EQ(rctx.stats_.errors.duplicate, 1u);
    deliver(sctx.writes[1], true);
    EXPECT_EQ(rctx.stats_.errors.bad_payload, 1u);
    EXPECT_EQ(rctx.stats_.fragments_in, 2u);
}

class MicroBenchmarkOnTcp : public ::testing::TestWithParam<const char*> {};

TEST_P(MicroBenchmarkOnTcp, EveryNodeReceivesExactlyItsMessages) {
    Config c = benchmark_config(Benchmark::one_to_one, 4, 150);
    std::string name = GetParam();
    std::string extra;
    if (name == "shift-scan") {
        c.phase_messages = 20;
        c.events = 4 * 20;
        extra = " --phase-messages 20";
    } else {
        extra = " --events 150";
    }
    c.benchmark = name == "one-to-one" ? Benchmark::one_to_one
        : name == "shift-scan"         ? Benchmark::shift_scan
        : name == "many-to-one"        ? Benchmark::many_to_one
        : name == "gather"             ? Benchmark::gather
                                       : Benchmark::gather_cmd_meta;
    if (c.benchmark == Benchmark::gather_cmd_meta) {
        c.meta_segments = 1;
        c.meta_size = 10240;
    }
    auto doc = run_evbench_json("--transport tcp --launch-local 4 --benchmark " + name +
                                    " --fragment-size 4KiB --size-dist uniform --verify full" + extra,
                                "micro_tcp_" + name);
    ASSERT_FALSE(doc.is_null());
    Expected e = expected_traffic(c);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    for (const auto& n : doc["results"]["nodes"]) {
        auto node = n["node"].get<std::uint32_t>();
        EXPECT_EQ(n["raw"]["fragments_in"].get<std::uint64_t>(), e.messages[node]) << name << " node " << node;
        EXPECT_EQ(n["raw"]["bytes_in"].get<std::uint64_t>(), e.bytes[node]) << name << " node " << node;
    }
    if (c.benchmark == Benchmark::shift_scan) {
        ASSERT_EQ(doc["results"]["phases"].size(), 4u);
        for (const auto& p : doc["results"]["phases"]) EXPECT_EQ(p["messages"], 4 * 20);
    }
}

INSTANTIATE_TEST_SUITE_P(Each, MicroBenchmarkOnTcp,
                         ::testing::Values("one-to-one", "shift-scan", "many-to-one", "gather", "gather-cmd-meta"), [](const auto& i) {
                             std::string n = i.param;
                             for (auto& ch : n)
                                 if (ch == '-') ch = '_';
                             return n;
                         });

// The shift scan on the simulator, phase by phase, against `evbench conflicts` on the same fabric
// and host order: the slowest node of phase s runs at b_eff / (flows on the most loaded channel).
// Within 2% (measured: 0.2% and 0.7%, 3 ms per shift, 4 traffic VLs). Shorter phases leave
// transients in the steady part (2 ms: the last shift of the first fabric 5% low).
class ShiftScanOnSim : public ::testing::TestWithParam<int> {};

void expect_scan_matches_analyser(const std::string& fabric, std::uint32_t nodes, const std::string& phase_time, const std::string& name) {
    std::string conflicts_json = temp_path(name + "_conflicts.json");
    auto a = run_command(evbench_binary() + " conflicts " + fabric + " --json " + conflicts_json, 60);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    auto analysis = nlohmann::json::parse(read_file(conflicts_json));
    auto scan = run_evbench_json("--transport sim --benchmark shift-scan --nodes " + std::to_string(nodes) + " " + fabric +
                                     " --phase-time " + phase_time,
                                 name + "_scan", 600);
    ASSERT_FALSE(scan.is_null());
    const double b_eff = scan["results"]["network"]["effective_gbps"].get<double>();
    const auto& phases = scan["results"]["phases"];
    ASSERT_EQ(phases.size(), nodes);
    std::uint32_t conflicting = 0;
    for (const auto& row : analysis["phases"]) {
        auto shift = row["shift"].get<std::uint32_t>();
        auto flows = row["max_flows"].get<std::uint32_t>();
        if (flows > 1) ++conflicting;
        double expected = b_eff / flows, measured = phases[shift]["min_gbps"].get<double>();
        EXPECT_NEAR(measured / expected, 1.0, 0.02)
            << name << " shift " << shift << ": " << measured << " Gb/s, analyser " << flows << " flows -> " << expected;
    }
    EXPECT_GT(conflicting, 0u) << "the fabric must have conflicts for the comparison to mean something";
}

TEST(ShiftScanOnSim, EveryPhaseOfAGeneratedFabricWithASwappedCableMatchesTheAnalyser) {
    expect_scan_matches_analyser("--k 4 --leaves 4 --swap 1:6", 16, "3ms", "scan_k4_swap");
}

TEST(ShiftScanOnSim, EveryPhaseOfAnImportedFabricMatchesTheAnalyser) {
    // A fabric in the tools' formats (ibnetdiscover and dump_lfts), read back as a user's dumps:
    // one host missing and one swapped cable pair.
    std::string net = temp_path("scan_import.net"), lfts = temp_path("scan_import.lfts");
    auto w = run_command(
        evbench_binary() + " fabric --k 4 --leaves 4 --missing 5 --swap 2:9 --write-topology " + net + " --write-lfts " + lfts, 60);
    ASSERT_EQ(w.exit_code, 0) << w.err;
    expect_scan_matches_analyser("--topology " + net + " --lfts " + lfts, 15, "3ms", "scan_import");
}

TEST(ShiftScanPlot, DrawsThePapersFigureAndRefusesAResultThatIsNoScan) {
    auto scan = run_evbench_json("--benchmark shift-scan --nodes 3 --phase-messages 8 --fragment-size 64KiB", "plot_scan");
    ASSERT_FALSE(scan.is_null());
    std::string scan_json = temp_path("plot_scan.json"), dir = temp_path("plot_scan_out");
    const std::string tool = "/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/plot_shift_scan.py ";
    auto r = run_command(tool + scan_json + " --out " + dir, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_GT(read_file(dir + "/shift_scan.png").size(), 1000u);
    EXPECT_NE(read_file(dir + "/shift_scan.svg").find("<svg"), std::string::npos);
    run_evbench_json("--nodes 3 --events 20", "plot_not_a_scan");
    auto bad = run_command(tool + temp_path("plot_not_a_scan.json") + " --out " + dir, 120);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("not a --benchmark shift-scan result"), std::string::npos) << bad.err;
}
