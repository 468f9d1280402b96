// `cmake --install build --prefix P` (docs/install.md): the installed evbench runs from another
// directory, finds the shipped configs by name, and the installed launch scripts find it.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

using namespace evb::test;

namespace {

// Installs this build into a fresh prefix once per test process.
const std::string& installed_prefix() {
    static const std::string prefix = [] {
        const std::string p = temp_path("install-prefix");
        const std::string build = std::filesystem::path(evbench_binary()).parent_path().string();
        auto r = run_command(std::string(EVB_CMAKE_COMMAND) + " --install " + build + " --prefix " + p, 120);
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        return p;
    }();
    return prefix;
}

// A directory that holds neither a build nor a config: what a user's working directory is.
std::string elsewhere() {
    const std::string dir = temp_path("elsewhere");
    std::filesystem::create_directories(dir);
    return dir;
}

} // namespace

TEST(Install, TheInstalledEvbenchRunsFromAnotherDirectoryWithAShippedConfigByName) {
    const std::string& p = installed_prefix();
    ASSERT_TRUE(std::filesystem::exists(p + "/bin/evbench"));
    ASSERT_TRUE(std::filesystem::exists(p + "/share/evbench/configs/laptop-loopback.toml"));
    const std::string json = elsewhere() + "/run.json";
    auto r = run_command("cd " + elsewhere() + " && env -u EVBENCH " + p +
                             "/bin/evbench --config laptop-loopback --launch-local 2 --duration 300ms --quiet --json " + json,
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["config"]["transport"], "tcp");   // from the config file, not the default (local)
    EXPECT_EQ(doc["config"]["fragment_size"], 1u << 20);
    EXPECT_GT(doc["results"]["system"]["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}

TEST(Install, AConfigNameNotShippedIsOneLineListingTheShippedOnes) {
    const std::string& p = installed_prefix();
    auto r = run_command("cd " + elsewhere() + " && " + p + "/bin/evbench --config no-such-setup", 30);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("no-such-setup"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("shipped configs: daqpipe-64-sim, daqpipe-best-64, laptop-loopback, lhcb-512-k16, next-upgrade-4096 (in " +
                         p + "/share/evbench/configs)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(count(r.err, "\n"), 1u) << r.err;
}

TEST(Install, TheInstalledScanScriptStartsTheInstalledEvbench) {
    const std::string& p = installed_prefix();
    const std::string out = elsewhere() + "/scan.jsonl";
    // No EVBENCH and no evbench on PATH: the script must find PREFIX/bin/evbench by itself.
    auto r = run_command("cd " + elsewhere() + " && env -u EVBENCH PATH=/usr/bin:/bin python3 " + p +
                             "/share/evbench/launch/scan.py --out " + out + " --param credits=1,2 -- --duration 100ms",
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::istringstream lines(read_file(out));
    std::string line;
    int points = 0;
    while (std::getline(lines, line)) {
        const auto j = nlohmann::json::parse(line);
        EXPECT_EQ(j["exit_code"], 0) << line.substr(0, 300);
        EXPECT_GT(j["results"]["system"]["events_built"].get<std::uint64_t>(), 0u);
        ++points;
    }
    EXPECT_EQ(points, 2);
}
