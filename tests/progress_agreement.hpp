// The progress lines of a multi-process run against its final table (tests ProgressLines* and the
// verbs run in the VM): every rank's work is counted up to a tenth of an interval before a line's
// time, so the last line and the table differ by what was built after it.
#pragma once

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace evb::test {

struct ProgressLine {
    double at = 0;
    std::uint64_t events = 0;
};

inline std::vector<ProgressLine> progress_lines(const std::string& out) {
    std::vector<ProgressLine> lines;
    const std::regex line(R"(\[\s*([0-9.]+) s\] events\s+(\d+) )");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
        lines.push_back({std::stod((*it)[1]), std::stoull((*it)[2])});
    return lines;
}

// `out`: the run's standard output with --progress-interval 1s and --warmup 0s; `doc`: its --json.
inline void expect_last_progress_line_agrees_with_the_table(const std::string& out, const nlohmann::json& doc) {
    const auto lines = progress_lines(out);
    ASSERT_GE(lines.size(), 2u) << out;
    const double built = doc["results"]["system"]["events_built"].get<double>();
    const double window = doc["results"]["window_s"].get<double>();
    ASSERT_GT(built, 0);
    // Every rank has reported by the first line (its ranks report ten times an interval).
    EXPECT_GT(lines.front().events, 0u) << out;
    // After the last line come at most what the run built between it and its end, and a tenth of
    // an interval's; a line short of every other rank's last interval lacks three quarters of one.
    const ProgressLine& last = lines.back();
    const double per_interval = built / window * 1.0;
    const double after_last = std::max(0.0, window - last.at) * built / window;
    EXPECT_LE(built - static_cast<double>(last.events), after_last + 0.5 * per_interval)
        << "last line " << last.events << " events at " << last.at << " s; the table " << built << " in " << window << " s\n" << out;
}

} // namespace evb::test
