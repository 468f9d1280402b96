// `cmake --install build --prefix P` (docs/install.md): the installed evbench runs from another
// directory, finds the shipped configs by name, and the installed launch scripts find it.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
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
    EXPECT_EQ(doc["config"]["transport"], "tcp"); // from the config file, not the default (local)
    EXPECT_EQ(doc["config"]["fragment_size"], 1u << 20);
    EXPECT_GT(doc["results"]["system"]["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}

TEST(Install, AConfigNameNotShippedIsOneLineListingTheShippedOnes) {
    const std::string& p = installed_prefix();
    auto r = run_command("cd " + elsewhere() + " && " + p + "/bin/evbench --config no-such-setup", 30);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("no-such-setup"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("shipped configs: daqpipe-64-sim, daqpipe-best-64, laptop-loopback, lhcb-512-k16, next-upgrade-4096 (in " + p +
                         "/share/evbench/configs)"),
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

namespace {
// `bash` completing the words after `evbench` with the installed completion: what it offers.
std::string completes(const std::string& prefix, const std::string& words) {
    const std::string script = "source " + prefix + "/share/bash-completion/completions/evbench; COMP_WORDS=(evbench " + words +
        "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _evbench; echo \"${COMPREPLY[*]}\"";
    const std::string file = temp_path("complete.sh");
    std::ofstream(file) << script << "\n";
    auto r = run_command("bash " + file, 30);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
}
} // namespace

// The man page, the bash completion and the result schema are installed, generated from the
// option declarations: every flag of every command is in the page, and the completion offers a
// command's own flags and a flag's values.
TEST(Install, TheManPageCompletionAndSchemaComeWithEveryFlag) {
    const std::string& p = installed_prefix();
    ASSERT_TRUE(std::filesystem::exists(p + "/share/evbench/schema/result-v1.schema.json"));
    const std::string page = read_file(p + "/share/man/man1/evbench.1");
    ASSERT_FALSE(page.empty());
    for (const char* command : {"", "info", "fabric", "conflicts", "netsim"}) {
        auto flags = run_command(p + "/bin/evbench " + command + " --flags-markdown", 30);
        ASSERT_EQ(flags.exit_code, 0) << flags.err;
        std::istringstream in(flags.out);
        int seen = 0;
        for (std::string line; std::getline(in, line);) {
            if (line.rfind("| `--", 0) != 0) continue;
            std::string flag = line.substr(5, line.find_first_of(" `", 5) - 5); // the name after "--"
            std::string troff;
            for (char c : flag) troff += c == '-' ? std::string("\\-") : std::string(1, c);
            EXPECT_NE(page.find("\\fB\\-\\-" + troff + "\\fR"), std::string::npos) << "evbench " << command << " --" << flag;
            ++seen;
        }
        EXPECT_GT(seen, 0) << command;
    }
    auto rendered = run_command("groff -man -Tutf8 -ww -z " + p + "/share/man/man1/evbench.1", 30);
    EXPECT_EQ(rendered.exit_code, 0) << rendered.err;
    EXPECT_EQ(rendered.err, "") << "groff's warnings";

    EXPECT_EQ(completes(p, "--proto"), "--protocol\n");
    EXPECT_EQ(completes(p, "--protocol ''"), "pull push pull-noem\n");
    EXPECT_EQ(completes(p, "net"), "netsim\n");
    EXPECT_EQ(completes(p, "netsim --traf"), "--traffic --traffic-vls\n");
    EXPECT_EQ(completes(p, "--traf"), "--traffic-vls\n"); // the run has the model's flags, not netsim's traffic
    EXPECT_NE(completes(p, "--transport ''").find("tcp"), std::string::npos);
}
