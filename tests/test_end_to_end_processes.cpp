// The one-process-per-rank transports (tcp, and ofi on its tcp;ofi_rxm and shm providers) with
// real processes on loopback, started by evbench's own launcher: every event built and verified
// for each protocol and layout; a rank that is killed is named by every survivor.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <thread>

using namespace evb::test;

namespace {

struct Point {
    const char* name;
    std::string args;
    std::uint32_t nodes;
};

// Each transport (its flags, shell-quoted) with every point.
const std::vector<std::pair<std::string, std::string>> kTransports = {
    {"Tcp", "--transport tcp"},
#ifdef EVB_HAVE_OFI
    {"OfiTcp", "--transport ofi --ofi-provider 'tcp;ofi_rxm'"},
    {"OfiShm", "--transport ofi --ofi-provider shm"},
    {"OfiUdp", "--transport ofi --ofi-provider 'udp;ofi_rxd'"},
#endif
#ifdef EVB_HAVE_UCX
    {"UcxTcp", "--transport ucx --ucx-tls tcp"},
    {"UcxShm", "--transport ucx --ucx-tls posix,cma"},
#endif
};

class ProcessEndToEnd : public ::testing::TestWithParam<std::tuple<std::pair<std::string, std::string>, Point>> {};

TEST_P(ProcessEndToEnd, BuildsAndVerifiesEveryEvent) {
    const auto& [transport, p] = GetParam();
    auto j = run_evbench_json(transport.second + " " + p.args + " --events 600 --verify full --size-dist uniform --fragment-size 64KiB",
                              "e2e", 120);
    ASSERT_FALSE(j.is_null());
    const auto& sys = j["results"]["system"];
    EXPECT_EQ(j["config"]["nodes"], p.nodes);
    EXPECT_EQ(sys["events_built"], 600);
    EXPECT_EQ(sys["events_assigned"], 600);
    EXPECT_EQ(sys["errors"], 0);
    EXPECT_TRUE(j["results"]["ok"].get<bool>());
    std::uint64_t fragments = 0;
    for (const auto& n : j["results"]["nodes"]) fragments += n["raw"]["fragments_in"].get<std::uint64_t>();
    EXPECT_EQ(fragments, 600u * p.nodes);
}

INSTANTIATE_TEST_SUITE_P(
    Loopback, ProcessEndToEnd,
    ::testing::Combine(::testing::ValuesIn(kTransports),
                       ::testing::Values(Point{"Pull4", "--launch-local 4 --credits 2 --parallel 2", 4},
                                         Point{"Push4", "--launch-local 4 --protocol push --parallel 2", 4},
                                         Point{"PullNoEm4Random", "--launch-local 4 --protocol pull-noem --scheduling random", 4},
                                         Point{"Ppn2FourProcesses", "--launch-local 4 --ppn 2 --credits 3", 2},
                                         Point{"Ppn2EmOwnRank", "--launch-local 5 --ppn 2 --em own --parallel 2", 2},
                                         // Every unit on its own thread and endpoint: 5 endpoints in 2 processes.
                                         Point{"PerUnitThreads", "--launch-local 2 --threads per-unit --credits 2", 2},
                                         Point{"PerUnitThreadsPushEmOwnRank",
                                               "--launch-local 4 --threads per-unit --protocol push --em own", 3},
                                         // The launcher serves the bootstrap where --bootstrap says (it used to pick its own
                                         // port while the ranks knocked on the given one: "Connection refused", exit 1). A
                                         // free port: 21000 + pid % 20000 could be an ephemeral one in use (30 s, then a failure).
                                         Point{"LaunchLocalWithBootstrapFlag",
                                               "--launch-local 3 --bootstrap 127.0.0.1:" + std::to_string(free_port()), 3})),
    [](const auto& i) { return std::get<0>(i.param).first + "_" + std::get<1>(i.param).name; });

// --rails lo,lo: each write to a peer takes the next rail, so per rank the rails differ by at
// most one write per peer, and together they carry every fragment byte written (the split
// layout: no RU writes to a BU of its own process, which never reaches a NIC).
TEST(Rails, WritesAlternateBetweenTheRailsAndEveryByteIsCounted) {
    auto j = run_evbench_json("--transport tcp --launch-local 3 --layout split --readout-nodes 1 --builder-nodes 1 --em own --rails lo,lo "
                              "--events 301 --fragment-size 64KiB --verify full",
                              "e2e_split_rails", 120);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["results"]["system"]["events_built"], 301);
    EXPECT_EQ(j["results"]["system"]["errors"], 0);
    const auto& rails = j["results"]["rails"];
    ASSERT_EQ(rails.size(), 3u); // RU 0, BU 0, EM
    std::uint64_t total = 0;
    for (const auto& rank : rails) {
        ASSERT_EQ(rank["nics"].size(), 2u) << rank;
        const std::uint64_t a = rank["nics"][0]["bytes"], b = rank["nics"][1]["bytes"];
        EXPECT_EQ(rank["nics"][0]["nic"], "lo");
        EXPECT_LE(a > b ? a - b : b - a, 64u << 10) << rank; // one write of a fragment to its one peer
        total += a + b;
    }
    std::uint64_t written = 0;
    for (const auto& n : j["results"]["nodes"]) written += n["raw"]["bytes_out"].get<std::uint64_t>();
    EXPECT_EQ(total, written);
    EXPECT_EQ(written, 301u * (64 << 10));
}

// Split layout, 1001 fragments of 64 KiB over two rails of `transport`: every byte on some rail,
// and the second rail used. A rail whose first write to a peer waits for that peer's region table
// passes its turn, so a short run can end before the second rail's table is in: with 101 fragments
// under load the second rail carried nothing (Rails.OfiDomainsAsRailsCarryEveryByte, once).
void expect_rails_carry_every_byte(const std::string& transport) {
    auto j = run_evbench_json(transport +
                                  " --launch-local 3 --layout split --readout-nodes 1 --builder-nodes 1 --em own "
                                  "--rails lo,lo --events 1001 --fragment-size 64KiB --verify full",
                              "e2e_rails", 120);
    ASSERT_FALSE(j.is_null());
    EXPECT_EQ(j["results"]["system"]["events_built"], 1001);
    EXPECT_EQ(j["results"]["system"]["errors"], 0);
    std::uint64_t total = 0;
    for (const auto& rank : j["results"]["rails"])
        for (const auto& nic : rank["nics"]) total += nic["bytes"].get<std::uint64_t>();
    EXPECT_EQ(total, 1001u * (64 << 10));
    EXPECT_GT(j["results"]["rails"][0]["nics"][1]["bytes"].get<std::uint64_t>(), 0u);
}

#ifdef EVB_HAVE_UCX
// And over UCX: a rail is a device (UCX_NET_DEVICES), here lo twice over its tcp transport.
TEST(Rails, UcxDevicesAsRailsCarryEveryByte) { expect_rails_carry_every_byte("--transport ucx --ucx-tls tcp"); }
#endif

#ifdef EVB_HAVE_OFI
// The same over libfabric: a rail is a domain of the provider (tcp;ofi_rxm names them after interfaces).
TEST(Rails, OfiDomainsAsRailsCarryEveryByte) { expect_rails_carry_every_byte("--transport ofi --ofi-provider 'tcp;ofi_rxm'"); }

// Before: --ofi-domain lo was recorded in the JSON while the run used eth0, as the header said.
TEST(Ofi, TheDomainGivenIsTheDomainTheRunUses) {
    auto r =
        run_command(evbench_binary() + " --transport ofi --ofi-provider 'tcp;ofi_rxm' --ofi-domain lo --launch-local 2 --events 50", 120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("# transport: libfabric"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("provider tcp;ofi_rxm, domain lo\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("NIC lo"), std::string::npos) << r.out;
}
#endif

std::vector<pid_t> children_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<pid_t> kids;
    pid_t k;
    while (f >> k) kids.push_back(k);
    return kids;
}

class ProcessFailure : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(ProcessFailure, KilledRankEndsTheRunWithAClearErrorOnEverySurvivor) {
    std::string out = temp_path("kill" + GetParam().first + ".out"), err = temp_path("kill" + GetParam().first + ".err");
    pid_t launcher = fork();
    if (launcher == 0) {
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        const std::string command = "exec " + evbench_binary() + " " + GetParam().second +
            " --launch-local 4 --duration 300 --grace 5 --fragment-size 64KiB --progress-interval 0.2s";
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    // Wait for the run to be under way: rank 0 prints progress lines.
    for (int i = 0; i < 600 && read_file(out).find("events") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_NE(read_file(out).find("Gb/s/node"), std::string::npos) << read_file(err);
    auto rank_pids = children_of(launcher);
    ASSERT_EQ(rank_pids.size(), 4u);
    ASSERT_EQ(kill(rank_pids[2], SIGKILL), 0); // rank 2: forked third

    // The run must end by itself long before its 300 s duration; the guard only catches hangs.
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 1200 && !ended; ++i) {
        ended = waitpid(launcher, &status, WNOHANG) == launcher;
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!ended) {
        kill(launcher, SIGKILL);
        for (pid_t r : rank_pids) kill(r, SIGKILL);
        waitpid(launcher, &status, 0);
    }
    ASSERT_TRUE(ended) << "the run hung after a rank was killed";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 0);
    std::string e = read_file(err);
    EXPECT_NE(e.find("rank 2 (pid " + std::to_string(rank_pids[2]) + ") was killed by signal 9"), std::string::npos) << e;
    for (int survivor : {0, 1, 3})
        EXPECT_NE(e.find("evbench[rank " + std::to_string(survivor) + "]: error: "), std::string::npos)
            << "no clear error from rank " << survivor << ":\n"
            << e;
    EXPECT_NE(e.find("rank 2"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Loopback, ProcessFailure, ::testing::ValuesIn(kTransports), [](const auto& i) { return i.param.first; });

} // namespace

#ifdef EVB_HAVE_UCX
// UCX 1.13's shared-memory transports have no peer failure handler. The run goes on without one
// (a dead peer is then found by the run's control connections and --heartbeat, and the transport
// line says so), so UCX's own
// error line about it, printed by every rank at start-up, looked like a failure: it is dropped.
TEST(Ucx, OverSharedMemoryTheStartPrintsNoErrorAndTheTransportLineSaysHowADeadPeerIsFound) {
    for (const char* tls : {"posix,cma", "sysv,cma,self"}) {
        auto r = run_command(evbench_binary() + " --transport ucx --ucx-tls " + tls + " --launch-local 2 --events 50", 60);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.err, "") << tls;
        EXPECT_NE(r.out.find("no peer failure handler: UCX does not see a peer die (the run's control connections and --heartbeat do)"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("# system: 50 events built in "), std::string::npos) << r.out;
    }
}
#endif

// --poll adaptive spins only where each reactor thread of the host has a CPU: two ranks held to
// one CPU (taskset) sleep at once, and the header says so; with CPUs enough, or --poll spin asked
// for, nothing changes and nothing is said.
TEST(SharedHost, AdaptivePollSleepsAtOnceWhereRanksOutnumberTheCpus) {
    const std::string run = " --transport tcp --launch-local 2 --events 200";
    auto one_cpu = run_command("taskset -c 0 " + evbench_binary() + run, 120);
    ASSERT_EQ(one_cpu.exit_code, 0) << one_cpu.out << one_cpu.err;
    EXPECT_NE(one_cpu.out.find("# poll: adaptive without its spin: 2 reactor threads on 1 cpus here"), std::string::npos) << one_cpu.out;
    auto spin = run_command("taskset -c 0 " + evbench_binary() + run + " --poll spin", 120);
    ASSERT_EQ(spin.exit_code, 0) << spin.out << spin.err;
    EXPECT_EQ(spin.out.find("# poll:"), std::string::npos) << spin.out;
    if (std::thread::hardware_concurrency() >= 2) {
        auto two_cpus = run_command("taskset -c 0,1 " + evbench_binary() + run, 120);
        ASSERT_EQ(two_cpus.exit_code, 0) << two_cpus.out << two_cpus.err;
        EXPECT_EQ(two_cpus.out.find("# poll:"), std::string::npos) << two_cpus.out;
    }
}
