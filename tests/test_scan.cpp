// launch/scan.py on the simulated transport: every point of the grid runs once, a rerun only
// runs what is missing, and array tasks or ranks each take their share of the points.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

using namespace evb::test;

namespace {

const std::string scan = std::string("python3 ") + EVBENCH_SOURCE_DIR + "/launch/scan.py --binary " + EVBENCH_BINARY;
const std::string grid = " --param credits=1,4 --param parallel=1,2 -- --transport sim --nodes 8 --k 2 --duration 200us --warmup 50us";

std::vector<nlohmann::json> lines_of(const std::string& path) {
    std::vector<nlohmann::json> out;
    std::istringstream in(read_file(path));
    std::string line;
    while (std::getline(in, line))
        if (auto j = nlohmann::json::parse(line, nullptr, false); !j.is_discarded()) out.push_back(j);   // skips a cut line
    return out;
}

std::set<std::string> points_of(const std::vector<nlohmann::json>& lines) {
    std::set<std::string> s;
    for (const auto& l : lines) s.insert(l["point"].dump());
    return s;
}

} // namespace

TEST(Scan, RunsEveryPointOnceAndResumes) {
    std::string out = temp_path("scan.jsonl");
    auto first = run_command(scan + " --out " + out + " --jobs 2" + grid, 300);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    auto lines = lines_of(out);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(points_of(lines).size(), 4u);
    for (const auto& l : lines) {
        EXPECT_EQ(l["exit_code"], 0);
        EXPECT_EQ(l["config"]["transport"], "sim");
        EXPECT_GT(l["results"]["network"]["fabric_rx_gbps"]["avg"].get<double>(), 0);
    }
    // An interrupted scan: drop two points, rerun, only those two run again.
    std::string kept = lines[0].dump() + "\n" + lines[1].dump() + "\n{\"point\": [\"--cut\"";   // a half-written line
    std::string resumed = temp_path("resumed.jsonl");
    std::ofstream(resumed) << kept;
    auto second = run_command(scan + " --out " + resumed + grid, 300);
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_NE(second.out.find("2 points run, 2 already done, 0 failed"), std::string::npos) << second.out;
    EXPECT_EQ(points_of(lines_of(resumed)), points_of(lines));
}

// Under a Slurm job array each task runs its one point; under mpirun or srun each rank runs the
// points i with i % size == rank.
TEST(Scan, ArrayTasksAndRanksSplitThePoints) {
    auto count = run_command(scan + " --out /dev/null --count" + grid, 60);
    EXPECT_EQ(count.out, "4\n");
    std::string out = temp_path("split.jsonl");
    auto task = run_command("SLURM_ARRAY_TASK_ID=2 " + scan + " --out " + out + grid, 300);
    ASSERT_EQ(task.exit_code, 0) << task.err;
    auto lines = lines_of(out);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0]["point"], nlohmann::json({"--credits", "4", "--parallel", "1"}));
    auto rank = run_command("OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 " + scan + " --out " + out + grid, 300);
    ASSERT_EQ(rank.exit_code, 0) << rank.err;
    lines = lines_of(out);
    ASSERT_EQ(lines.size(), 3u);   // task 2 already there; rank 1 of 2 adds points 1 and 3
    EXPECT_EQ(points_of(lines), (std::set<std::string>{R"(["--credits","4","--parallel","1"])", R"(["--credits","1","--parallel","2"])",
                                                       R"(["--credits","4","--parallel","2"])"}));
    auto bad = run_command("SLURM_ARRAY_TASK_ID=7 " + scan + " --out " + out + grid, 60);
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_NE(bad.err.find("array task 7 but the scan has 4 points"), std::string::npos) << bad.err;
}

// tools/: the scan's JSON lines become a CSV row each and PNG + SVG plots.
TEST(Scan, AggregateToCsvAndPlot) {
    std::string out = temp_path("plot.jsonl");
    auto r = run_command(scan + " --out " + out + grid, 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string tools = std::string(EVBENCH_SOURCE_DIR) + "/tools/";
    auto csv = run_command("python3 " + tools + "aggregate.py " + out, 60);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    std::istringstream in(csv.out);
    std::string header, line;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("transport,protocol,scheduling,nodes,ppn,credits,parallel,fragment_size,exit_code", 0), 0u) << header;
    int rows = 0;
    while (std::getline(in, line)) {
        EXPECT_EQ(line.rfind("sim,pull,barrel,8,1,", 0), 0u) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 4);
    std::string dir = temp_path("plots");
    auto plot = run_command("/usr/bin/python3 " + tools + "plot_scan.py " + out + " --out " + dir, 120);
    ASSERT_EQ(plot.exit_code, 0) << plot.err;
    for (const char* f : {"heatmap_nodes8.png", "heatmap_nodes8.svg", "vs_nodes.png", "vs_nodes.svg", "per_node.png", "per_node.svg"})
        EXPECT_GT(read_file(dir + "/" + f).size(), 1000u) << f;
    EXPECT_EQ(run_command("python3 " + tools + "aggregate.py /nonexistent.jsonl", 30).exit_code, 2);
}

// Kill a scan mid-way (the whole process group, as a batch system would), rerun: only the points
// without a result run.
TEST(Scan, KilledScanResumesWithTheMissingPoints) {
    std::string out = temp_path("killed.jsonl");
    const std::string slow = " --jobs 1 --param credits=1,2 --param parallel=1,2 -- --transport sim --nodes 64 --duration 4ms";
    auto killed = run_command("setsid " + scan + " --out " + out + slow + " & pid=$!; "
                              "for i in $(seq 600); do [ -s " + out + " ] && break; sleep 0.05; done; /bin/kill -9 -- -$pid; wait $pid; exit 0",
                              120);
    ASSERT_EQ(killed.exit_code, 0) << killed.err;
    std::istringstream first(read_file(out));
    std::string line;
    std::size_t done = 0;
    while (std::getline(first, line)) done += !line.empty();
    ASSERT_GE(done, 1u);
    ASSERT_LT(done, 4u) << "the scan finished before it was killed";
    auto resumed = run_command(scan + " --out " + out + slow, 300);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    EXPECT_NE(resumed.out.find(std::to_string(4 - done) + " points run, " + std::to_string(done) + " already done, 0 failed"), std::string::npos)
        << resumed.out;
    EXPECT_EQ(points_of(lines_of(out)).size(), 4u);
}
