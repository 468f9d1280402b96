// barrel-sync (DAQPIPE's synchronised barrel shift): from the trace of real runs, no BU enters
// phase n + 1 before every BU has all its transfers of phase n in and has said so, and in phase
// n BU b asks only RU (b + n) mod N, so every phase is a permutation; every event is built once
// and verified, on local, tcp and sim.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace evb::test;

namespace {

// Replays the trace of one process in order and checks the barrier and the permutation.
void expect_phases_in_lock_step(const std::string& trace, int nodes, std::uint64_t* requests_seen) {
    static const std::regex enters(R"re(BU (\d+) enters phase (\d+))re");
    static const std::regex done(R"re(BU (\d+) phase (\d+) done( \(finished\))?)re");
    static const std::regex request(R"re(BU (\d+) requests event \d+ slot \d+ from RU (\d+))re");
    std::map<int, long> phase_of; // BU -> phase it is in
    std::map<int, long> reported; // BU -> last phase it reported done
    std::set<int> finished;
    std::map<long, std::set<int>> asked; // phase -> RUs asked in it (one BU each)
    std::istringstream in(trace);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, enters)) {
            int bu = std::stoi(m[1]);
            long phase = std::stol(m[2]);
            phase_of[bu] = phase;
            if (phase == 0) continue;
            for (int other = 0; other < nodes; ++other) {
                bool ok = finished.count(other) || (reported.count(other) && reported[other] >= phase - 1);
                EXPECT_TRUE(ok) << "BU " << bu << " entered phase " << phase << " before BU " << other << " finished phase " << phase - 1;
            }
        } else if (std::regex_search(line, m, done)) {
            int bu = std::stoi(m[1]);
            reported[bu] = std::stol(m[2]);
            if (m[3].matched) finished.insert(bu);
        } else if (std::regex_search(line, m, request)) {
            int bu = std::stoi(m[1]), ru = std::stoi(m[2]);
            ASSERT_TRUE(phase_of.count(bu)) << line;
            long phase = phase_of[bu];
            EXPECT_EQ(ru, (bu + phase) % nodes) << "BU " << bu << " in phase " << phase;
            asked[phase].insert(ru);
            ++*requests_seen;
        }
    }
    EXPECT_EQ(finished.size(), static_cast<std::size_t>(nodes)) << "every BU ends by saying it is finished";
}

} // namespace

class BarrelSyncTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(BarrelSyncTrace, NoBuEntersAPhaseBeforeEveryTransferOfThePreviousIsIn) {
    auto r = run_command(evbench_binary() + " --nodes 5 --credits 3 --scheduling barrel-sync --protocol " + GetParam() +
                             " --events 40 --verify full --log-level trace --quiet",
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 2000);
    std::uint64_t requests = 0;
    expect_phases_in_lock_step(r.err, 5, &requests);
    EXPECT_EQ(requests, 40u * 5); // one request per fragment, every one in its phase's permutation
}

INSTANTIATE_TEST_SUITE_P(Protocols, BarrelSyncTrace, ::testing::Values("pull", "pull-noem"),
                         [](const auto& i) { return std::string(i.param) == "pull" ? "pull" : "pull_noem"; });

TEST(BarrelSync, BuildsEveryEventOnTcpProcessesAndOnTheSimulator) {
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"sync_tcp", "--transport tcp --launch-local 4 --credits 3 --verify full"},
             {"sync_tcp_noem", "--transport tcp --launch-local 4 --credits 2 --protocol pull-noem --verify full"},
             {"sync_sim", "--transport sim --nodes 16 --credits 4"}}) {
        auto doc = run_evbench_json(args + " --scheduling barrel-sync --events 300 --fragment-size 64KiB", name);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_EQ(doc["results"]["system"]["events_built"], 300) << name;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0) << name;
    }
}
