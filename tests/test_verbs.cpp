// The verbs transport on a real verbs stack: soft-RoCE (rdma_rxe) in a QEMU VM with a Debian
// kernel (tests/vm/run-in-vm.sh), since this machine's kernel has no RDMA. Every event built and
// verified by 2 and 4 processes, PULL and PUSH; a peer that vanishes is named and ends the run.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <regex>

using namespace evb::test;

namespace {

const std::string vm = std::string(EVBENCH_SOURCE_DIR) + "/tests/vm/run-in-vm.sh -t 900 -b " + EVBENCH_BINARY;

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

} // namespace

TEST(Verbs, NoDeviceIsOneClearLine) {
    // This machine's kernel has no RDMA: the driver must say so and what to do.
    auto r = run_command(evbench_binary() + " --transport verbs --launch-local 2 --events 10", 60);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "evbench: error: no RDMA device: load rdma_rxe or use another transport\n");   // once, before any rank starts
}

TEST(Verbs, EventBuildingOnSoftRoceBuildsAndVerifiesEveryEvent) {
    const std::string e = evbench_binary();
    const std::string script =
        e + " --transport verbs --launch-local 2 --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo rc=$?; " +
        e + " --transport verbs --launch-local 4 --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo rc=$?; " +
        e + " --transport verbs --launch-local 4 --protocol push --parallel 2 --events 300 --fragment-size 64KiB --verify full --quiet | tail -1; echo rc=$?; " +
        e + " --transport verbs --verbs-device rxe0 --launch-local 4 --ppn 2 --nodes 2 --events 300 --fragment-size 256KiB --quiet | tail -1; echo rc=$?; " +
        e + " --transport verbs --verbs-device mlx5_9 --launch-local 2 --events 10 2>&1 | tail -1";
    auto r = run_command(vm + " -- '" + script + "'", 900);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(count(r.out, "# system: 300 events built in"), 4u) << r.out;
    EXPECT_EQ(count(r.out, "errors: none"), 4u) << r.out;
    EXPECT_EQ(count(r.out, "rc=0"), 4u) << r.out;
    EXPECT_NE(r.out.find("no RDMA device named 'mlx5_9' (have: rxe0)"), std::string::npos) << r.out;
}

TEST(Verbs, PeerThatVanishesIsNamedAndTheRunEnds) {
    auto r = run_command(vm + " -f " + EVBENCH_SOURCE_DIR + "/tests/vm/peer-vanishes.sh -- 'sh " + EVBENCH_SOURCE_DIR +
                             "/tests/vm/peer-vanishes.sh " + evbench_binary() + "'",
                         600);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("lost connection to rank 1"), std::string::npos) << r.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("launcher_rc=(\\d+)"))) << r.out;
    EXPECT_NE(m[1], "0");
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("seconds=(\\d+)"))) << r.out;
    EXPECT_LT(std::stoi(m[1]), 20) << "the run went on for its whole duration";
}
