// Rank 0's bootstrap service, with real ranks on loopback sockets (threads of this process): an
// idle poll must not read from every rank's link (at thousands of ranks that was millions of
// syscalls a second on the EM's thread), and a frame still arrives from the rank that sent it.
#include "bootstrap.hpp"
#include "run_command.hpp"
#include "socket_util.hpp"
#include "world.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

using namespace evb;
using namespace evb::test;

namespace {

constexpr std::uint32_t ranks = 33;
constexpr int idle_polls = 2000;

// Rank 0 and 32 others; rank 0 polls idle links `idle_polls` times, then rank 7 sends a frame.
void idle_root_then_one_frame() {
    int listener = listen_on("127.0.0.1", 0, 64);
    const std::string endpoint = "127.0.0.1:" + std::to_string(bound_port(listener));
    const Picoseconds timeout = Picoseconds::from_seconds(20);
    std::vector<std::unique_ptr<Bootstrap>> others(ranks);
    std::vector<std::thread> threads;
    for (std::uint32_t r = 1; r < ranks; ++r)
        threads.emplace_back([&, r] { others[r] = std::make_unique<Bootstrap>(World{r, ranks, "test", true, ""}, endpoint, -1, timeout); });
    Bootstrap root(World{0, ranks, "test", true, ""}, endpoint, listener, timeout);
    for (auto& t : threads) t.join();
    for (int i = 0; i < idle_polls; ++i) ASSERT_TRUE(root.poll().empty());
    others[7]->send_to_root({{"type", "progress"}, {"n", 42}});
    for (int i = 0; i < 100000; ++i) {
        auto got = root.poll();
        if (got.empty()) continue;
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].from, 7u);
        EXPECT_EQ(got[0].body.value("n", 0), 42);
        return;
    }
    FAIL() << "rank 7's frame never arrived";
}

} // namespace

TEST(Bootstrap, AFrameFromOneOfManyRanksArrivesNamed) { idle_root_then_one_frame(); }

// Run by the next test under strace; skipped otherwise.
TEST(Bootstrap, StraceProbe) {
    if (!std::getenv("EVB_BOOTSTRAP_PROBE")) GTEST_SKIP() << "run under strace by Bootstrap.AnIdlePollReadsNoSocket";
    idle_root_then_one_frame();
}

TEST(Bootstrap, AnIdlePollReadsNoSocket) {
    // Counts every recvfrom() of the whole process: the 32 hellos and the one frame, against
    // 32 x 2000 when each idle poll reads each link.
    const std::string trace = temp_path("bootstrap.strace");
    // (LeakSanitizer cannot run under ptrace: in the sanitizer build the probe runs without it.)
    auto r = run_command("ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" EVB_BOOTSTRAP_PROBE=1 strace -f -qq -e trace=recvfrom -o " + trace +
                             " /proc/" + std::to_string(getpid()) + "/exe --gtest_filter=Bootstrap.StraceProbe",
                         120);
    ASSERT_EQ(r.exit_code, 0) << inner_gtest_output(r.out) << r.err;
    ASSERT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << inner_gtest_output(r.out);
    const std::string text = read_file(trace);
    std::size_t calls = 0;
    for (auto at = text.find("recvfrom("); at != std::string::npos; at = text.find("recvfrom(", at + 1)) ++calls;
    EXPECT_GT(calls, 0u) << "strace saw no recvfrom at all";
    EXPECT_LT(calls, std::size_t{idle_polls}) << "rank 0 read its links on idle polls";
}

// A port derived from the job key must lie below the ephemeral ports, where an outgoing
// connection of any other program may already hold it (a CI run failed with "cannot listen on
// 127.0.0.1:35810: Address already in use"), and still differ between concurrent jobs.
TEST(Bootstrap, ADerivedPortLiesBelowTheEphemeralPortsAndDiffersPerJob) {
    int ephemeral_first = 32768;   // Linux's default, when /proc does not say
    std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_first;
    std::set<int> ports;
    const int jobs = 4000;
    for (int j = 0; j < jobs; ++j) {
        const std::string endpoint = bootstrap_endpoint("", World{0, 4, "mpirun", true, "ompi." + std::to_string(j)});
        ASSERT_EQ(endpoint.rfind("127.0.0.1:", 0), 0u) << endpoint;
        const int port = std::stoi(endpoint.substr(endpoint.find(':') + 1));
        ASSERT_GE(port, 1024) << endpoint;
        ASSERT_LT(port, ephemeral_first) << endpoint << " is inside ip_local_port_range";
        ports.insert(port);
    }
    // 4000 keys over 12768 ports: a good hash leaves about 3450 distinct; a constant would leave 1.
    EXPECT_GT(ports.size(), 3000u);
}
