// launch/scan.py on the simulated transport: every point of the grid runs once, a rerun only
// runs what is missing, and array tasks or ranks each take their share of the points.
#include "run_command.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
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
        if (auto j = nlohmann::json::parse(line, nullptr, false); !j.is_discarded()) out.push_back(j); // skips a cut line
    return out;
}

std::set<std::string> points_of(const std::vector<nlohmann::json>& lines) {
    std::set<std::string> s;
    for (const auto& l : lines) s.insert(l["point"].dump());
    return s;
}

// A CSV of tools/aggregate.py: its header, and each line with its cells.
struct Csv {
    std::string header_line;
    std::vector<std::string> header;
    std::vector<std::pair<std::string, std::vector<std::string>>> rows;
    // The cell of column `name` in `row`: a column the header lacks fails the test (and reads empty).
    std::string at(const std::vector<std::string>& row, const std::string& name) const {
        const auto it = std::find(header.begin(), header.end(), name);
        EXPECT_NE(it, header.end()) << name << " in " << header_line;
        const auto i = static_cast<std::size_t>(it - header.begin());
        return i < row.size() ? row[i] : std::string();
    }
};

Csv read_csv(const std::string& text) {
    Csv csv;
    std::istringstream in(text);
    std::getline(in, csv.header_line);
    csv.header = csv_cells(csv.header_line);
    for (std::string line; std::getline(in, line);) csv.rows.emplace_back(line, csv_cells(line));
    return csv;
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
    std::string kept = lines[0].dump() + "\n" + lines[1].dump() + "\n{\"point\": [\"--cut\""; // a half-written line
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
    ASSERT_EQ(lines.size(), 3u); // task 2 already there; rank 1 of 2 adds points 1 and 3
    EXPECT_EQ(points_of(lines),
              (std::set<std::string>{R"(["--credits","4","--parallel","1"])", R"(["--credits","1","--parallel","2"])",
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
    for (const char* f : {"heatmap_nodes8.png", "heatmap_nodes8.svg", "per_node.png", "per_node.svg"})
        EXPECT_GT(read_file(dir + "/" + f).size(), 1000u) << f;
    // One node count: a plot against nodes would draw every setting on one x value.
    EXPECT_EQ(read_file(dir + "/vs_nodes.png"), "");
    EXPECT_EQ(run_command("python3 " + tools + "aggregate.py /nonexistent.jsonl", 30).exit_code, 2);
}

// Kill a scan mid-way (the whole process group, as a batch system would), rerun: only the points
// without a result run.
TEST(Scan, KilledScanResumesWithTheMissingPoints) {
    std::string out = temp_path("killed.jsonl");
    const std::string slow = " --jobs 1 --param credits=1,2 --param parallel=1,2 -- --transport sim --nodes 64 --duration 4ms";
    auto killed = run_command("setsid " + scan + " --out " + out + slow +
                                  " & pid=$!; "
                                  "for i in $(seq 600); do [ -s " +
                                  out + " ] && break; sleep 0.05; done; /bin/kill -9 -- -$pid; wait $pid; exit 0",
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
    EXPECT_NE(resumed.out.find(std::to_string(4 - done) + " points run, " + std::to_string(done) + " already done, 0 failed"),
              std::string::npos)
        << resumed.out;
    EXPECT_EQ(points_of(lines_of(out)).size(), 4u);
}

// tools/aggregate.py takes evbench's --json files (one pretty document each) beside scan lines,
// says which lines it skipped on standard error (never in the CSV), and gives each row the span
// its rates count over, the duration, the warm-up, the seed and the build.
TEST(Scan, AggregateReadsJsonFilesAndScanLinesAndNamesBadLinesOnStandardError) {
    const std::string doc = temp_path("aggregate_run.json"), lines = temp_path("aggregate_scan.jsonl");
    auto run =
        run_command(evbench_binary() + " --transport sim --nodes 4 --duration 1ms --warmup 200us --seed 7 --quiet --json " + doc, 60);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const auto parsed = nlohmann::json::parse(read_file(doc));
    std::ofstream(lines) << "not json\n" << parsed.dump() << "\n";
    auto csv = run_command("python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/aggregate.py " + doc + " " + lines, 60);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(csv.out.find("not a JSON line"), std::string::npos) << csv.out;
    EXPECT_NE(csv.err.find(lines + ":1: not a JSON line (skipped)"), std::string::npos) << csv.err;
    std::istringstream in(csv.out);
    std::string line;
    std::getline(in, line);
    const auto header = csv_cells(line);
    auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    ASSERT_LT(column("commit"), header.size()) << line;
    int rows = 0;
    while (std::getline(in, line)) {
        ++rows;
        const auto row = csv_cells(line);
        ASSERT_EQ(row.size(), header.size()) << line;
        EXPECT_EQ(row[column("transport")], "sim");
        EXPECT_DOUBLE_EQ(std::stod(row[column("window_s")]), parsed["results"]["window_s"].get<double>()) << line;
        EXPECT_DOUBLE_EQ(std::stod(row[column("duration_s")]), parsed["config"]["duration_s"].get<double>()) << line;
        EXPECT_DOUBLE_EQ(std::stod(row[column("warmup_s")]), parsed["config"]["warmup_s"].get<double>()) << line;
        EXPECT_EQ(row[column("seed")], "7");
        EXPECT_EQ(row[column("commit")], parsed["evbench"]["commit"].get<std::string>());
    }
    EXPECT_EQ(rows, 2);
}

// An output scan.py cannot write is refused before any point runs, and every point says it ended.
TEST(Scan, AnOutputItCannotWriteIsRefusedFirstAndEachPointIsALineWhenItEnds) {
    auto missing = run_command(scan + " --out /nonexistent-folder/scan.jsonl" + grid, 60);
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(missing.err, "scan.py: error: --out /nonexistent-folder/scan.jsonl: the folder /nonexistent-folder does not exist\n");
    auto folder = run_command(scan + " --out " + temp_path("") + grid, 60);
    EXPECT_EQ(folder.exit_code, 2);
    EXPECT_NE(folder.err.find("is a directory"), std::string::npos) << folder.err;

    const std::string out = temp_path("progress.jsonl");
    auto r = run_command(scan + " --jobs 1 --out " + out + grid, 300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* line : {"scan.py: [1/4] --credits 1 --parallel 1: ok", "scan.py: [2/4] --credits 1 --parallel 2: ok",
                             "scan.py: [3/4] --credits 4 --parallel 1: ok", "scan.py: [4/4] --credits 4 --parallel 2: ok"})
        EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
}

// Before: a scan's best cells were start-up figures and nothing said so (8 of scans.md's 12 points
// had start-up in their window), the CSV had no column for it nor for built rate, event rate or
// latency, and no plot said which rate, transport or duration it showed.
TEST(Scan, APointWhoseWindowHoldsTheStartUpIsMarkedInItsLineTheCsvAndEveryPlot) {
    const std::string out = temp_path("start_up.jsonl");
    // 8 nodes of 64 KiB: one credit's events come within the warm-up, sixteen credits' first
    // events only after the window (each BU fills 16 x 8 fragments at once).
    auto r =
        run_command(scan + " --jobs 1 --out " + out +
                        " --param credits=1,16 -- --transport sim --nodes 8 --k 2 --fragment-size 64KiB --duration 400us --warmup 100us",
                    300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("--credits 16: ok (start-up in its window"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("--credits 1: ok (start-up"), std::string::npos) << r.out;
    for (const auto& line : lines_of(out)) {
        const bool sixteen = line["point"][1] == "16";
        EXPECT_EQ(line["start_up_in_window"], sixteen) << line["point"];
        if (sixteen)
            EXPECT_GT(line["results"]["system"]["idle_builders"].get<int>(), 0) << line["point"];
        else
            EXPECT_EQ(line["results"]["system"]["idle_builders"], 0) << line["point"];
    }
    auto aggregated = run_command("python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/aggregate.py " + out, 60);
    ASSERT_EQ(aggregated.exit_code, 0) << aggregated.err;
    const Csv csv = read_csv(aggregated.out);
    for (const char* column : {"start_up", "idle_builders", "built_gbps", "event_rate_hz", "latency_avg_us", "latency_p99_us"})
        EXPECT_NE(std::find(csv.header.begin(), csv.header.end(), column), csv.header.end()) << column << " in " << csv.header_line;
    int rows = 0;
    for (const auto& [line, row] : csv.rows) {
        ASSERT_GE(row.size(), csv.header.size() - 1) << line; // the last cell, the point, may be empty
        const bool sixteen = csv.at(row, "credits") == "16";
        EXPECT_EQ(csv.at(row, "start_up"), sixteen ? "yes" : "no") << line;
        if (!sixteen) {
            EXPECT_GT(std::stod(csv.at(row, "event_rate_hz")), 0) << line;
            EXPECT_GT(std::stod(csv.at(row, "built_gbps")), 0) << line;
            EXPECT_GT(std::stod(csv.at(row, "latency_avg_us")), 0) << line;
        }
        ++rows;
    }
    EXPECT_EQ(rows, 2);
    const std::string dir = temp_path("start_up_plots");
    auto plot = run_command("/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/plot_scan.py " + out + " --out " + dir, 120);
    ASSERT_EQ(plot.exit_code, 0) << plot.err;
    const std::string map = read_file(dir + "/heatmap_nodes8.svg"), bars = read_file(dir + "/per_node.svg");
    EXPECT_EQ(count(map, ">start-up<"), 1u) << "the one start-up cell says so";
    for (const std::string* svg : {&map, &bars}) {
        EXPECT_NE(svg->find("received over the network"), std::string::npos);
        EXPECT_NE(svg->find("transport sim"), std::string::npos);
        EXPECT_NE(svg->find("0.0004 s simulated, counted from 0.0001 s"), std::string::npos);
        EXPECT_NE(svg->find("1 start-up (hatched): not steady"), std::string::npos);
    }
}

// Every point until steady (issue "A steady-state verdict"): each line says its rate and
// half-width, the CSV carries the verdict, the rate and the half-width, and the plots show the
// steady window's rate with its half-width and say so.
TEST(Scan, EveryPointUntilSteadyCarriesItsVerdictAndHalfWidthIntoTheCsvAndThePlots) {
    const std::string out = temp_path("steady.jsonl");
    auto r = run_command(scan + " --jobs 1 --out " + out +
                             " --param credits=1,2 -- --transport sim --nodes 32 --fragment-size 64KiB --until steady --duration 0.5s",
                         300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::map<std::string, nlohmann::json> steady;
    for (const auto& line : lines_of(out)) {
        const auto& s = line["results"]["steady"];
        ASSERT_TRUE(s["reached"].get<bool>()) << line["point"];
        EXPECT_EQ(line["start_up_in_window"], false) << line["point"];
        steady[line["point"][1].get<std::string>()] = s;
        EXPECT_NE(
            r.out.find(fmt::format("--credits {}: ok (steady: {:.2f} +- {:.2f} Gb/s per node built", line["point"][1].get<std::string>(),
                                   s["per_node_built_gbps"].get<double>(), s["half_width_gbps"].get<double>())),
            std::string::npos)
            << r.out;
    }
    ASSERT_EQ(steady.size(), 2u);
    auto aggregated = run_command("python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/aggregate.py " + out, 60);
    ASSERT_EQ(aggregated.exit_code, 0) << aggregated.err;
    const Csv csv = read_csv(aggregated.out);
    int rows = 0;
    for (const auto& [line, row] : csv.rows) {
        const auto& s = steady.at(csv.at(row, "credits"));
        EXPECT_EQ(csv.at(row, "steady"), "yes") << line;
        EXPECT_EQ(csv.at(row, "start_up"), "no") << line;
        EXPECT_NEAR(std::stod(csv.at(row, "steady_gbps")), s["per_node_built_gbps"].get<double>(), 1e-4) << line;
        EXPECT_NEAR(std::stod(csv.at(row, "half_width_gbps")), s["half_width_gbps"].get<double>(), 1e-4) << line;
        ++rows;
    }
    EXPECT_EQ(rows, 2);
    const std::string dir = temp_path("steady_plots");
    auto plot = run_command("/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/plot_scan.py " + out + " --out " + dir, 120);
    ASSERT_EQ(plot.exit_code, 0) << plot.err;
    const std::string map = read_file(dir + "/heatmap_nodes32.svg"), bars = read_file(dir + "/per_node.svg");
    EXPECT_EQ(count(map, fmt::format(">+-{:.2f}<", steady.at("1")["half_width_gbps"].get<double>())), 1u) << "each cell its half-width";
    for (const std::string* svg : {&map, &bars}) {
        EXPECT_NE(svg->find("built over each run's steady window (--until steady), +- 95 % half-width"), std::string::npos);
        EXPECT_NE(svg->find("until steady or 0.5 s simulated"), std::string::npos);
    }
}

// A scan over credits x fragment size: tools/plot_scan.py draws one heatmap of credits x fragment
// size (it drew the sizes over each other on a credits x parallel map, only the last size left),
// labels every bar with both, and refuses runs it would draw over each other (the same file twice).
TEST(Scan, PlotDrawsEveryScannedDimensionAndRefusesRunsItWouldDrawOverEachOther) {
    const std::string out = temp_path("three_dims.jsonl");
    auto r = run_command(scan + " --out " + out +
                             " --param credits=1,2 --param fragment-size=64KiB,256KiB -- --transport sim --nodes 8 --k 2 --duration 200us",
                         300);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string plot = "/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/plot_scan.py ";
    const std::string dir = temp_path("three_dims_plots");
    auto drawn = run_command(plot + out + " --out " + dir, 120);
    ASSERT_EQ(drawn.exit_code, 0) << drawn.err;
    const std::string map = read_file(dir + "/heatmap_nodes8.svg");
    EXPECT_NE(map.find("Gb/s per node"), std::string::npos); // the colour bar's unit
    for (const char* text : {"fragment size", "credits", "64KiB", "256KiB"}) EXPECT_NE(map.find(text), std::string::npos) << text;
    EXPECT_EQ(map.find(">parallel<"), std::string::npos); // not a scanned dimension
    const std::string bars = read_file(dir + "/per_node.svg");
    for (const char* bar : {"c1 f64KiB", "c1 f256KiB", "c2 f64KiB", "c2 f256KiB"}) EXPECT_EQ(count(bars, bar), 1u) << bar;
    auto twice = run_command(plot + out + " " + out + " --out " + temp_path("twice_plots"), 120);
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_NE(twice.err.find("plot them separately"), std::string::npos) << twice.err;
}
