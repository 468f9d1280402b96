// Progress lines of a multi-process run count every rank's work up to a tenth of an interval
// before their time: the last line and the final table differ by what was built after it, not by
// a whole interval of the other ranks' events (before: tcp, 4 ranks, last line 1390 events,
// table 2125; a 10-rank run's first line said 0 events).
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <regex>

using namespace evb::test;

namespace {

struct ProgressLine {
    double at = 0;
    std::uint64_t events = 0;
};

std::vector<ProgressLine> progress_lines(const std::string& out) {
    std::vector<ProgressLine> lines;
    const std::regex line(R"(\[\s*([0-9.]+) s\] events\s+(\d+) )");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
        lines.push_back({std::stod((*it)[1]), std::stoull((*it)[2])});
    return lines;
}

TEST(ProgressLines, TheLastLineOfAMultiProcessRunAgreesWithTheTable) {
    const std::string json = temp_path("progress_tcp.json");
    auto r = run_command(evbench_binary() + " --transport tcp --launch-local 4 --duration 3s --warmup 0s --progress-interval 1s "
                                            "--fragment-size 64KiB --json " + json,
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    const auto lines = progress_lines(r.out);
    ASSERT_GE(lines.size(), 2u) << r.out;
    const double built = doc["results"]["system"]["events_built"].get<double>();
    const double window = doc["results"]["window_s"].get<double>();
    ASSERT_GT(built, 0);
    // Every rank has reported by the first line (its ranks report ten times an interval).
    EXPECT_GT(lines.front().events, 0u) << r.out;
    // After the last line come at most what the run built between it and its end, and a tenth of
    // an interval's; a line short of every other rank's last interval lacks three quarters of one.
    const ProgressLine& last = lines.back();
    const double per_interval = built / window * 1.0;
    const double after_last = std::max(0.0, window - last.at) * built / window;
    EXPECT_LE(built - static_cast<double>(last.events), after_last + 0.5 * per_interval)
        << "last line " << last.events << " events at " << last.at << " s; the table " << built << " in " << window << " s\n" << r.out;
}

} // namespace

namespace {

// `evbench netsim` says how far it is, in simulated time, as the event builder does.
TEST(ProgressLines, NetsimPrintsALinePerIntervalOfSimulatedTime) {
    auto r = run_command(evbench_binary() + " netsim --k 4 --traffic shift --shift 1 --message-size 64KiB --duration 50us", 120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::regex line(R"(\n\[\s*([0-9.]+) s\] delivered\s+(\d+) messages  rx\s+([0-9.]+) Gb/s/host  wall [0-9.]+ s)");
    std::vector<double> at;
    std::uint64_t delivered = 0;
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), line); it != std::sregex_iterator(); ++it) {
        at.push_back(std::stod((*it)[1]));
        EXPECT_GE(std::stoull((*it)[2]), delivered) << it->str();
        delivered = std::stoull((*it)[2]);
        // No host receives above its 100 Gb/s link, but for one 4 KiB packet more in an interval (a
        // packet counts when its last byte is in): 6.6 Gb/s over 5 us.
        EXPECT_LE(std::stod((*it)[3]), 106.6) << it->str();
    }
    ASSERT_EQ(at.size(), 9u) << r.out;   // a tenth of the duration each, the last one the result's
    for (std::size_t i = 0; i < at.size(); ++i) EXPECT_NEAR(at[i], 5e-6 * static_cast<double>(i + 1), 1e-12) << r.out;
    EXPECT_GT(delivered, 0u);

    auto quiet = run_command(evbench_binary() + " netsim --k 4 --traffic shift --shift 1 --message-size 64KiB --duration 50us --progress-interval 0s", 120);
    ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
    EXPECT_EQ(quiet.out.find(" delivered "), std::string::npos) << quiet.out;
}

} // namespace
