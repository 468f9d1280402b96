// The verbs transport on a real verbs stack: soft-RoCE (rdma_rxe) in a QEMU VM with a Debian
// kernel (tests/vm/run-in-vm.sh), since this machine's kernel has no RDMA. Every event built and
// verified by 2 and 4 processes, PULL and PUSH, progress lines that agree with the table; a peer
// that vanishes is named and ends the run.
#include "progress_agreement.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

using namespace evb::test;

namespace {

// The VM's own limit is below the test's timeout (run_in_vm), so that a VM that does not finish
// shows its console (run-in-vm.sh prints it) instead of being killed with the test.
const std::string vm = std::string(EVBENCH_SOURCE_DIR) + "/tests/vm/run-in-vm.sh -b " + EVBENCH_BINARY;

CommandResult run_in_vm(const std::string& arguments, int seconds) {
    return run_command(vm + " -t " + std::to_string(seconds - 60) + " " + arguments, seconds);
}

} // namespace

TEST(Verbs, NoDeviceIsOneClearLine) {
    // This machine's kernel has no RDMA: the driver must say so and what to do.
    auto r = run_command(evbench_binary() + " --transport verbs --launch-local 2 --events 10", 60);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "evbench: error: no RDMA device: load rdma_rxe or use another transport\n"); // once, before any rank starts
}

TEST(Verbs, EventBuildingOnSoftRoceBuildsAndVerifiesEveryEvent) {
    const std::string e = evbench_binary();
    const std::string script = e +
        " --transport verbs --launch-local 2 --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo rc=$?; " + e +
        " --transport verbs --launch-local 4 --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo rc=$?; " + e +
        " --transport verbs --launch-local 4 --protocol push --parallel 2 --events 300 --fragment-size 64KiB --verify full --quiet | tail "
        "-1; echo rc=$?; " +
        e +
        " --transport verbs --verbs-device rxe0 --launch-local 4 --ppn 2 --nodes 2 --events 300 --fragment-size 256KiB --quiet | tail -1; "
        "echo rc=$?; " +
        // Each unit its own thread and QPs: 5 endpoints in 2 processes connect at once through rdma_cm.
        e +
        " --transport verbs --launch-local 2 --threads per-unit --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo "
        "rc=$?; " +
        e + " --transport verbs --verbs-device mlx5_9 --launch-local 2 --events 10 2>&1 | tail -1; " +
        // A timed run's progress lines against its table (as tests/test_progress_lines.cpp on the
        // other transports), in this VM's boot.
        "echo ===progress; " + e +
        " --transport verbs --launch-local 4 --duration 3s --warmup 0s --progress-interval 1s --fragment-size 64KiB " +
        "--json /tmp/progress.json; echo ===json; cat /tmp/progress.json";
    auto r = run_in_vm("-- '" + script + "'", 900);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto progress = r.out.find("===progress"), json = r.out.find("===json");
    ASSERT_TRUE(progress != std::string::npos && json != std::string::npos && progress < json) << r.out;
    const auto doc = nlohmann::json::parse(r.out.substr(json + 7));
    expect_last_progress_line_agrees_with_the_table(r.out.substr(progress, json - progress), doc);
    expect_every_progress_line_true(r.out.substr(progress, json - progress), doc, 0, 1,
                                    4 * doc["results"]["system"]["per_node_in_gbps"].get<double>() + 1, false);
    // verbs' result follows the shipped schema too (tests/test_result_schema.cpp runs the other transports).
    const std::string verbs_json = temp_path("verbs_progress.json");
    std::ofstream(verbs_json) << doc.dump();
    expect_result_follows_the_schema(verbs_json, "verbs on soft-RoCE");
    const std::string counted = r.out.substr(0, progress); // the runs before the timed one
    EXPECT_EQ(count(counted, "# system: 300 events built in"), 5u) << r.out;
    EXPECT_EQ(count(counted, "errors: none"), 5u) << r.out;
    EXPECT_EQ(count(counted, "rc=0"), 5u) << r.out;
    EXPECT_NE(counted.find("no RDMA device named 'mlx5_9' (have: rxe0)"), std::string::npos) << r.out;
}

TEST(Verbs, InfoShowsTheSoftRoceDeviceWithItsPortAndGid) {
    // `rdma link show` is the kernel's own word on the port; the GID of an IPv4 RoCE address is
    // that address mapped into IPv6 (::ffff:10.0.0.1).
    auto r = run_in_vm("-- '" + evbench_binary() + " info; echo ===; rdma link show'", 600);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(link rxe0/1 state (\S+) physical_state \S+ netdev (\S+))"))) << r.out;
    EXPECT_NE(r.out.find("\nrdma device rxe0: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n  port 1: " + m[1].str() + ", Ethernet, "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(", on " + m[2].str() + "\n"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n    gid \d+: 0000:0000:0000:0000:0000:ffff:0a00:0001\n)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nverbs device rxe0: firmware \S+, 1 port\(s\), up to \d+ QPs)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\ninterface d0: .*, 10\.0\.0\.1)"))) << r.out;
}

// --rails rxe0,rxe1: event building over two soft-RoCE devices, the bytes on each counted by the
// devices themselves (hw_counters/sent_pkts), not by evbench: each device sent at least the
// packets its share of the bytes needs at the largest path MTU (4096 B), and the two shares are
// even, as evbench says they are.
TEST(Verbs, TwoRailsCarryTheWritesAsTheDevicesOwnCountersShow) {
    const std::string script = std::string(EVBENCH_SOURCE_DIR) + "/tests/vm/two-rails.sh";
    auto r = run_in_vm("-f " + script + " -- 'sh " + script + " " + evbench_binary() + "'", 600);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    ASSERT_NE(r.out.find("link rxe1/1 state ACTIVE"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(sent_pkts rxe0=(\d+) rxe1=(\d+))"))) << r.out;
    const double sent0 = std::stod(m[1]), sent1 = std::stod(m[2]);
    const auto from = r.out.find("=== json\n"), to = r.out.find("\n=== end");
    ASSERT_NE(from, std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(r.out.substr(from + 9, to - from - 9));
    EXPECT_EQ(doc["results"]["system"]["events_built"], 200);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    double bytes0 = 0, bytes1 = 0;
    for (const auto& rank : doc["results"]["rails"]) {
        ASSERT_EQ(rank["nics"].size(), 2u) << rank;
        EXPECT_EQ(rank["nics"][0]["nic"], "rxe0");
        EXPECT_EQ(rank["nics"][1]["nic"], "rxe1");
        bytes0 += rank["nics"][0]["bytes"].get<double>();
        bytes1 += rank["nics"][1]["bytes"].get<double>();
    }
    // 2 nodes: half of the 200 x 2 fragments cross to the other process.
    EXPECT_GT(bytes0 + bytes1, 0.3 * 400 * 256 * 1024);
    EXPECT_GE(sent0, bytes0 / 4096) << r.out;
    EXPECT_GE(sent1, bytes1 / 4096) << r.out;
    EXPECT_NEAR(sent0 / (sent0 + sent1), 0.5, 0.1) << r.out;
    EXPECT_NEAR(bytes0 / (bytes0 + bytes1), 0.5, 0.1);
}

TEST(Verbs, AMemlockLimitTooLowForThePoolsIsNamedNotAnObscureRegistrationError) {
    // Root has CAP_IPC_LOCK; without it (dropped from the bounding set) RLIMIT_MEMLOCK applies.
    auto r = run_in_vm("-b /usr/bin/setpriv -- 'ulimit -l 64; /usr/bin/setpriv --bounding-set -ipc_lock " + evbench_binary() +
                           " --transport verbs --launch-local 2 --events 10; echo rc=$?'",
                       600);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(
        r.out.find("cannot lock the 16MiB of buffer pools in memory (Cannot allocate memory): RLIMIT_MEMLOCK is 64KiB; RDMA registration "
                   "needs them locked: raise it (ulimit -l unlimited"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("rc=2"), std::string::npos) << r.out;
}

TEST(Verbs, PeerThatVanishesIsNamedAndTheRunEnds) {
    auto r = run_in_vm(std::string("-f ") + EVBENCH_SOURCE_DIR + "/tests/vm/peer-vanishes.sh -f " + EVBENCH_SOURCE_DIR +
                           "/tests/vm/wait-for-progress.sh -- 'sh " + EVBENCH_SOURCE_DIR + "/tests/vm/peer-vanishes.sh " +
                           evbench_binary() + "'",
                       600);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("killed rank 1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("lost connection to rank 1"), std::string::npos) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("launcher_rc=(\\d+)"))) << r.out;
    EXPECT_NE(m[1], "0");
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("seconds=(\\d+)"))) << r.out;
    EXPECT_LT(std::stoi(m[1]), 20) << "the run went on for its whole duration";
}

TEST(Verbs, AKilledBuilderIsSurvivedWithOnFailureContinue) {
    auto r =
        run_in_vm(std::string("-f ") + EVBENCH_SOURCE_DIR + "/tests/vm/bu-killed.sh -f " + EVBENCH_SOURCE_DIR +
                      "/tests/vm/wait-for-progress.sh -- 'sh " + EVBENCH_SOURCE_DIR + "/tests/vm/bu-killed.sh " + evbench_binary() + "'",
                  900);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("killed rank 3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("launcher_rc=0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# lost: rank 3 (BU 1)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("errors: none"), std::string::npos) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.out, m,
        std::regex(
            R"re(# failures: (\d+) events re-assigned, (\d+) re-built by survivors, \d+ built by lost BUs before; 0 events incomplete)re")))
        << r.out;
    EXPECT_EQ(m[1], m[2]);
}

TEST(Verbs, ConformanceSuiteOnSoftRoce) {
    // The transport conformance suite's verbs instance (in the integration tests' binary) and the
    // keyed connection requests (test_verbs_keyed.cpp), in one VM boot.
    const std::string suite = EVB_CONFORMANCE_BINARY;
    auto r = run_command(std::string(EVBENCH_SOURCE_DIR) + "/tests/vm/run-in-vm.sh -t 1500 -b " + suite + " -- '" + suite +
                             " --gtest_color=no --gtest_filter=EveryDriver/Conformance.*/verbs:VerbsKeyed.*'",
                         1500);
    const std::string shown = inner_gtest_output(r.out);
    ASSERT_EQ(r.exit_code, 0) << shown << inner_gtest_output(r.err);
    EXPECT_EQ(count(r.out, "[       OK ] EveryDriver/Conformance."), 9u) << shown;
    EXPECT_EQ(count(r.out, "[       OK ] VerbsKeyed."), 1u) << shown;
    // The one test skipped: a stopped peer, which verbs leaves to the run's control plane (no
    // heartbeat of its own); its line, the summary's count and its name listed again.
    const std::string stopped_peer = "[  SKIPPED ] EveryDriver/Conformance.APeerThatStopsIsNamedAfterTheHeartbeatsTimeout/verbs";
    EXPECT_EQ(count(r.out, stopped_peer), 2u) << shown;
    EXPECT_EQ(count(r.out, "SKIPPED"), 3u) << shown;
    EXPECT_NE(r.out.find("[  PASSED  ] 10 tests."), std::string::npos) << shown;
}

TEST(Verbs, ReadsItsConnectionChannelAtMostOnceAMillisecond) {
    // rdma_get_cm_event is a syscall on the connection manager's channel: it was called on every
    // poll of the reactor (hundreds of thousands a second); a peer that goes away is still
    // noticed, within a millisecond. A shim (tests/vm/count_cm_events.cpp) counts the calls.
    const std::string shim = EVB_COUNT_CM_EVENTS;
    // (In the sanitizer build the shim is preloaded ahead of the ASan runtime, which ASan allows
    // only when told not to check its link order.)
    const std::string script = "ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" LD_PRELOAD=" + shim + " " + evbench_binary() +
        " --transport verbs --launch-local 2 --duration 2s --fragment-size 64KiB --quiet 2>/tmp/err | tail -1; "
        "grep cm_event_calls= /tmp/err || tail -5 /tmp/err";
    auto r = run_in_vm("-f " + shim + " -- '" + script + "'", 900);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("errors: none"), std::string::npos) << r.out;
    std::size_t ranks = 0;
    const std::regex calls("cm_event_calls=(\\d+)");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), calls); it != std::sregex_iterator(); ++it) {
        if ((*it)[1] == "0") continue; // the launcher
        ++ranks;
        // 2 s of run plus start and stop: at most ~1000 checks a second, however fast the loop.
        EXPECT_LT(std::stoul((*it)[1]), 5000u) << r.out;
    }
    EXPECT_EQ(ranks, 2u) << r.out;
}
