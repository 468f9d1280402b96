// A result says where and how it ran (command line, options as given, launcher; per rank its host,
// PID and NIC; per host its kernel and CPU; the environment that steers transports and
// launchers, never a secret), and `evbench --config RESULT.json` runs the same options again.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <set>

using namespace evb::test;

namespace {

std::string this_host() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
}

std::string cpuinfo_model() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("model name", 0) == 0) return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
    return "";
}

TEST(Provenance, AResultOfLocalProcessesSaysWhereEachRankRanAndHowItWasLaunched) {
    const std::string json = temp_path("provenance_tcp.json");
    const std::string command = "FI_LOG_LEVEL=warn UCX_TLS=tcp " + evbench_binary() +
        " --transport tcp --launch-local 2 --events 50 --fragment-size 64KiB --quiet --json " + json;
    auto r = run_command(command, 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string text = read_file(json);
    const auto doc = nlohmann::json::parse(text);

    const auto& inv = doc["invocation"];
    EXPECT_EQ(inv["launcher"], "evbench --launch-local");
    EXPECT_EQ(inv["command_line"][0], evbench_binary());
    EXPECT_EQ(inv["command_line"].size(), 12u) << inv;
    EXPECT_EQ(
        inv["options"],
        nlohmann::json({{"transport", "tcp"}, {"launch-local", "2"}, {"events", "50"}, {"fragment-size", "64KiB"}, {"quiet", "true"}}));
    EXPECT_EQ(doc["config"]["launch_local"], 2); // read 0 before: the ranks did not know how they were launched

    const auto& origin = doc["origin"];
    ASSERT_EQ(origin["ranks"].size(), 2u) << origin;
    std::set<std::int64_t> pids;
    for (std::uint32_t i = 0; i < 2; ++i) {
        const auto& rank = origin["ranks"][i];
        EXPECT_EQ(rank["rank"], i);
        EXPECT_EQ(rank["host"], this_host());
        EXPECT_GT(rank["pid"].get<std::int64_t>(), 0);
        pids.insert(rank["pid"].get<std::int64_t>());
        EXPECT_EQ(rank["nic"], "lo") << rank; // tcp on 127.0.0.1
        EXPECT_EQ(rank["address"], "127.0.0.1") << rank;
    }
    EXPECT_EQ(pids.size(), 2u);
    utsname u{};
    ASSERT_EQ(uname(&u), 0);
    const auto& host = origin["hosts"][this_host()];
    EXPECT_EQ(host["kernel"], std::string("Linux ") + u.release + " " + u.version);
    EXPECT_EQ(host["cpu_model"], cpuinfo_model());
    EXPECT_EQ(origin["environment"]["FI_LOG_LEVEL"], "warn");
    EXPECT_EQ(origin["environment"]["UCX_TLS"], "tcp");
    EXPECT_EQ(origin["environment"]["EVBENCH_RANK"], "0");
    EXPECT_EQ(origin["environment_differs"]["1"]["EVBENCH_RANK"], "1");
    EXPECT_FALSE(origin["environment"].contains("PATH"));
    // The run key the launcher handed its ranks is a secret: in no variable of the result.
    EXPECT_EQ(text.find("EVBENCH_RUN_KEY"), std::string::npos);
}

TEST(Provenance, ARunInOneProcessRecordsThatProcess) {
    const auto doc = run_evbench_json("--events 20 --fragment-size 64KiB", "provenance_local");
    ASSERT_FALSE(doc.is_null());
    ASSERT_EQ(doc["origin"]["ranks"].size(), 1u);
    EXPECT_TRUE(doc["origin"]["ranks"][0]["rank"].is_null());
    EXPECT_EQ(doc["origin"]["ranks"][0]["host"], this_host());
    EXPECT_EQ(doc["invocation"]["launcher"], "none");
}

// The options as given come back from the result; the command line still wins over them, and the
// result's own --json is not among them (a rerun would write over what it reads).
TEST(Provenance, ARunFromAResultRunsTheSameOptionsAgain) {
    const std::string first = temp_path("rerun_first.json"), again = temp_path("rerun_again.json"),
                      changed = temp_path("rerun_changed.json");
    auto a = run_command(
        evbench_binary() +
            " --transport tcp --launch-local 2 --events 120 --credits 3 --fragment-size 32KiB --verify full --quiet --json " + first,
        120);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    auto b = run_command(evbench_binary() + " --config " + first + " --json " + again, 120);
    ASSERT_EQ(b.exit_code, 0) << b.err;
    const auto one = nlohmann::json::parse(read_file(first)), two = nlohmann::json::parse(read_file(again));
    auto config_one = one["config"], config_two = two["config"];
    config_one.erase("json");
    config_two.erase("json");
    EXPECT_EQ(config_one, config_two);
    EXPECT_EQ(one["invocation"]["options"], two["invocation"]["options"]);
    EXPECT_EQ(two["results"]["system"]["events_built"], 120);
    EXPECT_EQ(two["origin"]["ranks"].size(), 2u); // launched locally again

    auto c = run_command(evbench_binary() + " --config " + first + " --credits 5 --quiet --json " + changed, 120);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const auto three = nlohmann::json::parse(read_file(changed));
    EXPECT_EQ(three["config"]["credits"], 5);
    EXPECT_EQ(three["config"]["fragment_size"], 32 * 1024);
}

} // namespace
