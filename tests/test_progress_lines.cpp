// Progress lines of a multi-process run agree with its table on every transport that starts
// processes (before: tcp, 4 ranks, last line 1390 events, table 2125; a 10-rank run's first line
// said 0 events); verbs: tests/test_verbs.cpp, in a VM.
#include "progress_agreement.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <regex>

using namespace evb::test;

namespace {

// How each transport's ranks are started: evbench's own launcher, or mpirun for mpi (the mpirun
// instance is in the system tier, tests/tiers.cmake).
struct Launch {
    const char* name;
    bool mpirun;
    const char* flags; // after evbench: the transport, and --launch-local 4 when not under mpirun
};

class ProgressLinesAcrossProcesses : public ::testing::TestWithParam<Launch> {};

// A bound no true line of a loopback run exceeds: four times the run's average (its lines read
// 7128 Gb/s and 1.8e19 Hz at the warm-up's end before the fix).
double line_limit_of(const nlohmann::json& doc) { return 4 * doc["results"]["system"]["per_node_in_gbps"].get<double>() + 1; }

TEST_P(ProgressLinesAcrossProcesses, TheLastLineAgreesWithTheTable) {
    const std::string json = temp_path(std::string("progress_") + GetParam().name + ".json");
    const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 ";
    auto r = run_command((GetParam().mpirun ? mpirun : std::string()) + evbench_binary() + " " + GetParam().flags +
                             " --duration 3s --warmup 0s --progress-interval 1s --fragment-size 64KiB --json " + json,
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    expect_last_progress_line_agrees_with_the_table(r.out, doc);
    expect_every_progress_line_true(r.out, doc, 0, 1, line_limit_of(doc), false);
}

// The multi-process transports this build has.
std::vector<Launch> launches() {
    std::vector<Launch> out{{"tcp", false, "--transport tcp --launch-local 4"}};
#ifdef EVB_HAVE_OFI
    out.push_back({"ofi", false, "--transport ofi --ofi-provider 'tcp;ofi_rxm' --launch-local 4"});
#endif
#ifdef EVB_HAVE_UCX
    out.push_back({"ucx", false, "--transport ucx --ucx-tls tcp --launch-local 4"});
#endif
#ifdef EVB_HAVE_MPI
    out.push_back({"mpi_mpirun", true, "--transport mpi"});
#endif
    return out;
}

INSTANTIATE_TEST_SUITE_P(Transports, ProgressLinesAcrossProcesses, ::testing::ValuesIn(launches()),
                         [](const ::testing::TestParamInfo<Launch>& p) { return std::string(p.param.name); });

} // namespace

namespace {

// The line at the warm-up's end (before: `[ 2.00 s] events 552 rate 18453321132614352896.0 Hz`,
// the events fewer than the line before): marked, and every line what its interval moved.
TEST(ProgressLines, EveryLineOfATcpRunAcrossTheWarmUpsEndIsTrue) {
    const std::string json = temp_path("progress_warmup_tcp.json");
    auto r = run_command(
        evbench_binary() +
            " --transport tcp --launch-local 4 --duration 3s --warmup 1s --progress-interval 1s --fragment-size 64KiB --json " + json,
        120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    expect_every_progress_line_true(r.out, doc, 1, 1, line_limit_of(doc), false);
}

// In one process, a warm-up that ends within a line's interval (before: `in 7128.17 Gb/s/node`).
TEST(ProgressLines, EveryLineOfAnInProcessRunIsTrueAndTheOneAcrossTheWarmUpsEndSaysSo) {
    const std::string json = temp_path("progress_warmup_local.json");
    auto r =
        run_command(evbench_binary() + " --duration 2s --warmup 0.3s --progress-interval 200ms --fragment-size 64KiB --json " + json, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_NE(r.out.find("(warm-up until 0.3 s: partly not counted)"), std::string::npos) << r.out;
    expect_every_progress_line_true(r.out, doc, 0.3, 0.2, line_limit_of(doc), false);
}

// On the simulator every line counts what the host links carried: none above b_eff (but for a
// packet more per interval), and the lines after the warm-up add up to the summary (before: 62.10,
// 59.38 and 59.45 Gb/s against a summary of 70.53: the lines took the node's own fragments off
// the links' bytes; at the warm-up's end a line read 1.8e22 Hz).
TEST(ProgressLines, EveryLineOfASimulatedRunIsWhatTheLinksCarried) {
    for (const char* warmup : {"0s", "1ms"}) {
        const std::string json = temp_path(std::string("progress_sim_") + warmup + ".json");
        auto r = run_command(
            evbench_binary() +
                " --transport sim --nodes 8 --credits 2 --fragment-size 64KiB --duration 3ms --progress-interval 500us --warmup " + warmup +
                " --json " + json,
            120);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto doc = nlohmann::json::parse(read_file(json));
        const double b_eff = doc["results"]["network"]["effective_gbps"].get<double>();
        const double packet_more = 4096.0 * 8 / 500e-6 / 1e9; // one MTU packet more in an interval
        expect_every_progress_line_true(r.out, doc, std::string(warmup) == "1ms" ? 1e-3 : 0, 500e-6, b_eff + packet_more, true);
    }
}

// `evbench netsim` says how far it is, in simulated time, as the event builder does.
TEST(ProgressLines, NetsimPrintsALinePerIntervalOfSimulatedTime) {
    auto r = run_command(evbench_binary() + " netsim --k 4 --traffic shift --shift 1 --message-size 64KiB --duration 50us", 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::regex line(R"(\n\[\s*([0-9.]+) s\] delivered\s+(\d+) messages  rx\s+([0-9.]+) Gb/s/host  wall [0-9.]+ s)");
    std::vector<double> at;
    std::uint64_t delivered = 0;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
        at.push_back(std::stod((*it)[1]));
        EXPECT_GE(std::stoull((*it)[2]), delivered) << it->str();
        delivered = std::stoull((*it)[2]);
        // No host receives above its 100 Gb/s link, but for one 4 KiB packet more in an interval (a
        // packet counts when its last byte is in): 6.6 Gb/s over 5 us.
        EXPECT_LE(std::stod((*it)[3]), 106.6) << it->str();
    }
    ASSERT_EQ(at.size(), 9u) << r.out; // a tenth of the duration each, the last one the result's
    for (std::size_t i = 0; i < at.size(); ++i) EXPECT_NEAR(at[i], 5e-6 * static_cast<double>(i + 1), 1e-12) << r.out;
    EXPECT_GT(delivered, 0u);

    auto quiet = run_command(
        evbench_binary() + " netsim --k 4 --traffic shift --shift 1 --message-size 64KiB --duration 50us --progress-interval 0s", 120);
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.out.find(" delivered "), std::string::npos) << quiet.out;
}

} // namespace
