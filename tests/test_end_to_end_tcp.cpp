// The tcp transport with real processes on loopback, started by evbench's own launcher.
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

nlohmann::json run_json(const std::string& args) {
    std::string json = temp_path("tcp" + std::to_string(std::hash<std::string>{}(args)) + ".json");
    auto r = run_command(evbench_binary() + " --transport tcp --quiet --json " + json + " " + args, 120);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::ifstream f(json);
    if (!f) return {};
    return nlohmann::json::parse(f);
}

struct TcpPoint {
    const char* name;
    std::string args;
    std::uint32_t nodes;
};

class TcpEndToEnd : public ::testing::TestWithParam<TcpPoint> {};

TEST_P(TcpEndToEnd, BuildsAndVerifiesEveryEvent) {
    const auto& p = GetParam();
    auto j = run_json(p.args + " --events 600 --verify full --size-dist uniform --fragment-size 64KiB");
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
    Loopback, TcpEndToEnd,
    ::testing::Values(TcpPoint{"Pull4", "--launch-local 4 --credits 2 --parallel 2", 4},
                      TcpPoint{"Push4", "--launch-local 4 --protocol push --parallel 2", 4},
                      TcpPoint{"PullNoEm4Random", "--launch-local 4 --protocol pull-noem --scheduling random", 4},
                      TcpPoint{"Ppn2FourProcesses", "--launch-local 4 --ppn 2 --credits 3", 2},
                      TcpPoint{"Ppn2EmOwnRank", "--launch-local 5 --ppn 2 --em own --parallel 2", 2},
                      // The launcher serves the bootstrap where --bootstrap says (it used to pick its own port
                      // while the ranks knocked on the given one: "Connection refused", exit 1).
                      TcpPoint{"LaunchLocalWithBootstrapFlag",
                               "--launch-local 3 --bootstrap 127.0.0.1:" + std::to_string(21000 + getpid() % 20000), 3}),
    [](const ::testing::TestParamInfo<TcpPoint>& i) { return std::string(i.param.name); });

std::vector<pid_t> children_of(pid_t pid) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<pid_t> kids;
    pid_t k;
    while (f >> k) kids.push_back(k);
    return kids;
}

TEST(TcpFailure, KilledRankEndsTheRunWithAClearErrorOnEverySurvivor) {
    std::string out = temp_path("kill.out"), err = temp_path("kill.err");
    pid_t launcher = fork();
    if (launcher == 0) {
        int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        std::string bin = evbench_binary();
        execl(bin.c_str(), bin.c_str(), "--transport", "tcp", "--launch-local", "4", "--duration", "300", "--grace", "5",
              "--fragment-size", "64KiB", "--progress-interval", "0.2s", static_cast<char*>(nullptr));
        _exit(127);
    }
    // Wait for the run to be under way: rank 0 prints progress lines.
    for (int i = 0; i < 600 && read_file(out).find("events") == std::string::npos; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_NE(read_file(out).find("Gb/s/node"), std::string::npos) << read_file(err);
    auto ranks = children_of(launcher);
    ASSERT_EQ(ranks.size(), 4u);
    ASSERT_EQ(kill(ranks[2], SIGKILL), 0);   // rank 2: forked third

    // The run must end by itself long before its 300 s duration; the guard only catches hangs.
    int status = 0;
    bool ended = false;
    for (int i = 0; i < 1200 && !ended; ++i) {
        ended = waitpid(launcher, &status, WNOHANG) == launcher;
        if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!ended) {
        kill(launcher, SIGKILL);
        for (pid_t r : ranks) kill(r, SIGKILL);
        waitpid(launcher, &status, 0);
    }
    ASSERT_TRUE(ended) << "the run hung after a rank was killed";
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 0);
    std::string e = read_file(err);
    EXPECT_NE(e.find("rank 2 (pid " + std::to_string(ranks[2]) + ") was killed by signal 9"), std::string::npos) << e;
    for (int survivor : {0, 1, 3})
        EXPECT_NE(e.find("evbench[rank " + std::to_string(survivor) + "]: error: "), std::string::npos)
            << "no clear error from rank " << survivor << ":\n" << e;
    EXPECT_NE(e.find("rank 2"), std::string::npos);
}

} // namespace
