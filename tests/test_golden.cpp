// Deterministic simulations against golden outputs: the same inputs and seed give the same
// results bit for bit, so any change in what the model computes shows here, on purpose or not.
// Volatile fields (wall-clock time, the --json path, the build's identity) are dropped before comparing; numbers agree
// to 1e-12 relative. After an intended change of the model, regenerate and review the diff:
//   EVB_UPDATE_GOLDEN=1 build/tests/evbench_integration_tests --gtest_filter='*Golden*'
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>

using namespace evb::test;

namespace {

struct GoldenRun {
    const char* name;
    std::string args; // evbench arguments; --json is added
};

void drop_volatile(nlohmann::json& j) {
    if (!j.is_object()) {
        if (j.is_array())
            for (auto& e : j) drop_volatile(e);
        return;
    }
    // Where it ran (host, PID, environment, the simulator's threads) and the command line with its temporary paths.
    for (const char* key : {"wall_seconds", "wall_s", "sim_threads", "json", "evbench", "origin", "command_line"}) j.erase(key);
    for (auto& [key, value] : j.items()) drop_volatile(value);
}

// Where the two differ first, as "path: expected vs got"; empty when they agree.
std::string first_difference(const nlohmann::json& want, const nlohmann::json& got, const std::string& path) {
    if (want.is_number_float() || got.is_number_float()) {
        if (!want.is_number() || !got.is_number()) return path + ": " + want.dump() + " vs " + got.dump();
        double a = want.get<double>(), b = got.get<double>();
        return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)) ? "" : path + ": " + want.dump() + " vs " + got.dump();
    }
    if (want.type() != got.type()) return path + ": " + want.dump() + " vs " + got.dump();
    if (want.is_object()) {
        for (auto& [k, v] : want.items()) {
            if (!got.contains(k)) return path + "." + k + ": missing";
            if (auto d = first_difference(v, got[k], path + "." + k); !d.empty()) return d;
        }
        for (auto& [k, v] : got.items())
            if (!want.contains(k)) return path + "." + k + ": not in the golden output";
        return "";
    }
    if (want.is_array()) {
        if (want.size() != got.size()) return path + ": " + std::to_string(want.size()) + " vs " + std::to_string(got.size()) + " entries";
        for (std::size_t i = 0; i < want.size(); ++i)
            if (auto d = first_difference(want[i], got[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
        return "";
    }
    return want == got ? "" : path + ": " + want.dump() + " vs " + got.dump();
}

class Golden : public ::testing::TestWithParam<GoldenRun> {};

TEST_P(Golden, SimulationMatchesItsGoldenOutput) {
    const auto& p = GetParam();
    const std::string out = temp_path(std::string("golden_") + p.name + ".json");
    auto r = run_command(evbench_binary() + " " + p.args + " --json " + out, 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto got = nlohmann::json::parse(read_file(out));
    drop_volatile(got);
    const std::string golden = std::string(EVBENCH_SOURCE_DIR) + "/tests/golden/" + p.name + ".json";
    if (std::getenv("EVB_UPDATE_GOLDEN")) {
        std::ofstream(golden) << got.dump(1) << "\n";
        GTEST_SKIP() << "wrote " << golden;
    }
    const std::string text = read_file(golden);
    ASSERT_FALSE(text.empty()) << golden << " is missing: regenerate (see the top of this file)";
    EXPECT_EQ(first_difference(nlohmann::json::parse(text), got, ""), "") << "against " << golden;
}

INSTANTIATE_TEST_SUITE_P(
    Deterministic, Golden,
    ::testing::Values(GoldenRun{"netsim_linear_k4", "netsim --k 4 --traffic linear --message-size 256KiB --duration 50us"},
                      GoldenRun{"netsim_random_k4", "netsim --k 4 --traffic random --message-size 64KiB --duration 50us --seed 7"},
                      GoldenRun{"sim_eb_pull_n8",
                                "--transport sim --nodes 8 --credits 4 --parallel 2 --fragment-size 128KiB --events 400 --quiet"}),
    [](const ::testing::TestParamInfo<GoldenRun>& i) { return std::string(i.param.name); });

} // namespace
