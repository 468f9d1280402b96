// What a run says about itself: the binary that made it (--version, "evbench" in every JSON) and
// the CPU it spent (getrusage per process, cores per 100 Gb/s), read back from real runs.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

using namespace evb::test;

namespace {

std::string git_head() {
    auto r = run_command("git -C " + std::string(EVBENCH_SOURCE_DIR) + " rev-parse --short=12 HEAD 2>/dev/null");
    return r.exit_code == 0 ? r.out.substr(0, r.out.find('\n')) : "";
}

// The cpu section's arithmetic, against the run's own elapsed time and bytes.
void expect_consistent_cpu(const nlohmann::json& results, std::size_t processes) {
    ASSERT_TRUE(results.contains("cpu")) << results.dump();
    const auto& cpu = results["cpu"];
    ASSERT_EQ(cpu["processes"].size(), processes);
    double user = 0, system = 0;
    for (const auto& p : cpu["processes"]) {
        user += p["user_s"].get<double>();
        system += p["system_s"].get<double>();
    }
    EXPECT_NEAR(cpu["user_s"].get<double>(), user, 1e-9);
    EXPECT_NEAR(cpu["system_s"].get<double>(), system, 1e-9);
    const double elapsed = results["elapsed_s"].get<double>();
    EXPECT_NEAR(cpu["cores_busy"].get<double>(), (user + system) / elapsed, 1e-9);
    const double moved = cpu["moved_gbps"].get<double>();
    ASSERT_GT(moved, 0);
    // The bytes into the builders that crossed the network (each node's own fragment did not),
    // over the span they were counted in: the warm-up's end to the run's end (before: over the
    // whole run, bytes of a shorter window).
    double bytes_in = 0;
    for (const auto& n : results["nodes"]) bytes_in += n["raw"]["bytes_in"].get<double>() - n["raw"]["bytes_in_local"].get<double>();
    EXPECT_NEAR(moved, bytes_in * 8 / (elapsed - results["counted_from_s"].get<double>()) / 1e9, 1e-9 * moved);
    EXPECT_NEAR(cpu["cores_per_100gbps"].get<double>(), cpu["cores_busy"].get<double>() / (moved / 100), 1e-9);
}

} // namespace

TEST(BuildIdentity, VersionNamesTheCommitAndTheDriversBuilt) {
    auto r = run_command(evbench_binary() + " --version");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.out, m,
        std::regex(R"(^evbench (\d+\.\d+) \(commit ([0-9a-f]{12}(-dirty)?|unknown); build: ([^,;]+), ([^;]+); drivers: (.*)\)\n$)")))
        << r.out;
    // How it was built: this build's type and options, as CMake configured it, and its compiler.
    EXPECT_EQ(m[4].str(), EVB_EXPECTED_BUILD);
    EXPECT_EQ(m[5].str(), EVB_EXPECTED_COMPILER);
    // The commit is read when building, not when configuring: it is this checkout's HEAD.
    if (auto head = git_head(); !head.empty()) {
        EXPECT_EQ(m[2].str().substr(0, 12), head);
    }
    const std::string drivers = m[6];
    for (const char* always : {"local", "tcp", "sim"}) EXPECT_NE(drivers.find(always), std::string::npos) << drivers;
#ifdef EVB_HAVE_MPI
    EXPECT_NE(drivers.find("mpi"), std::string::npos) << drivers;
#endif
}

TEST(BuildIdentity, EveryJsonDocumentCarriesIt) {
    auto version = run_command(evbench_binary() + " --version").out;
    auto run = run_evbench_json("--transport local --events 50", "identity_run");
    ASSERT_TRUE(run.contains("evbench")) << run.dump();
    EXPECT_NE(version.find("commit " + run["evbench"]["commit"].get<std::string>() + ";"), std::string::npos) << version;
    EXPECT_NE(version.find("drivers: " + run["evbench"]["drivers"].get<std::string>() + ")"), std::string::npos) << version;
    EXPECT_NE(
        version.find("build: " + run["evbench"]["build"].get<std::string>() + ", " + run["evbench"]["compiler"].get<std::string>() + ";"),
        std::string::npos)
        << version;

    const std::string fabric_json = temp_path("identity_fabric.json");
    auto fabric = run_command(evbench_binary() + " fabric --k 4 --json " + fabric_json);
    ASSERT_EQ(fabric.exit_code, 0) << fabric.err;
    EXPECT_EQ(nlohmann::json::parse(read_file(fabric_json))["evbench"], run["evbench"]);
}

TEST(RunCost, OneProcessReportsItsCpuAndCoresPer100Gbps) {
    auto doc = run_evbench_json("--transport local --nodes 4 --duration 300ms", "cost_local");
    ASSERT_FALSE(doc.is_null());
    expect_consistent_cpu(doc["results"], 1);
    EXPECT_EQ(doc["results"]["cpu"]["processes"][0]["rank"], "all");
    // One reactor thread polls without sleeping for the whole run: it spent user time.
    EXPECT_GT(doc["results"]["cpu"]["user_s"].get<double>(), 0);
}

TEST(RunCost, EveryRankOfAProcessRunReportsItsCpu) {
    auto doc = run_evbench_json("--transport tcp --launch-local 4 --duration 300ms", "cost_tcp");
    ASSERT_FALSE(doc.is_null());
    expect_consistent_cpu(doc["results"], 4);
    for (std::size_t i = 0; i < 4; ++i) {
        const auto& p = doc["results"]["cpu"]["processes"][i];
        EXPECT_EQ(p["rank"], i);
        // Every rank moved fragments through the kernel's sockets: system time is not zero.
        EXPECT_GT(p["system_s"].get<double>(), 0) << p.dump();
    }
}

TEST(RunCost, TheTableFooterSaysIt) {
    auto r = run_command(evbench_binary() + " --transport tcp --launch-local 2 --nodes 2 --duration 200ms");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::regex_search(
        r.out,
        std::regex(R"(# cpu: user [0-9.]+ s \+ system [0-9.]+ s in [0-9.]+ s = [0-9.]+ cores busy; [0-9.]+ cores per 100 Gb/s moved)")))
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(# cpu per rank \(user/system s\):  0: [0-9.]+/[0-9.]+  1: [0-9.]+/[0-9.]+\n)")))
        << r.out;
}

TEST(RunCost, SimulatedTimeHasNoCpuFigures) {
    auto doc = run_evbench_json("--transport sim --nodes 4 --events 20", "cost_sim");
    ASSERT_FALSE(doc.is_null());
    EXPECT_FALSE(doc["results"].contains("cpu"));
}
