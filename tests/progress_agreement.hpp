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
        << "last line " << last.events << " events at " << last.at << " s; the table " << built << " in " << window << " s\n"
        << out;
}

// A progress line whole: its time, events since the start, the interval's rates, what is in
// flight, and its marks.
struct FullProgressLine {
    double at = 0, rate_hz = 0, in_gbps = 0, out_gbps = 0;
    std::uint64_t events = 0, in_flight = 0;
    std::string marks;
};

inline std::vector<FullProgressLine> full_progress_lines(const std::string& out) {
    std::vector<FullProgressLine> lines;
    const std::regex line(
        R"(\[\s*([0-9.]+) s\] events\s+(\d+)  rate\s+([0-9.]+) Hz  in\s+([0-9.]+) Gb/s/node  out\s+([0-9.]+) Gb/s/node  in flight (\d+)([^\n]*))");
    for (auto it = std::sregex_iterator(out.begin(), out.end(), line); it != std::sregex_iterator(); ++it)
        lines.push_back({std::stod((*it)[1]), std::stod((*it)[3]), std::stod((*it)[4]), std::stod((*it)[5]), std::stoull((*it)[2]),
                         std::stoull((*it)[6]), (*it)[7]});
    return lines;
}

// Every progress line of a run against what its intervals moved (`out` its standard output, `doc`
// its --json, `warmup_s` its --warmup, `interval_s` its --progress-interval):
// - a line's event rate is what the events since the start grew by over its interval, and they
//   never fall;
// - no line's rate exceeds `limit_gbps` (the simulator: b_eff and a packet more per interval);
// - a line whose interval reaches into the warm-up says so, and only those;
// - the lines after the warm-up add up to the summary's bytes in: exactly on the simulator
//   (`exact`: the lines cover the byte window), else within `slack_intervals` intervals' worth
//   (the window's start and end fall between lines, and a line holds the other ranks' counts up
//   to a tenth of an interval late).
inline void expect_every_progress_line_true(const std::string& out, const nlohmann::json& doc, double warmup_s, double interval_s,
                                            double limit_gbps, bool exact, double slack_intervals = 2.0) {
    const double time_rounding = exact ? 5e-7 : 5e-3; // half the last digit of the line's time (6 decimals simulated, 2 else)
    const auto lines = full_progress_lines(out);
    ASSERT_GE(lines.size(), 2u) << out;
    const auto& sys = doc["results"]["system"];
    const double in_total = sys["per_node_in_gbps"].get<double>() * doc["results"]["bytes_window_s"].get<double>(); // Gb per node
    double in_after_warmup = 0, covered_from = -1, covered_to = 0;
    double prev_at = 0;
    std::uint64_t prev_events = 0;
    for (const auto& l : lines) {
        const double dt = l.at - prev_at;
        SCOPED_TRACE("line at " + std::to_string(l.at) + " s");
        ASSERT_GT(dt, 0) << out;
        ASSERT_GE(l.events, prev_events) << out;
        // The time printed is rounded (to 10 ms on real transports, 1 ns simulated): the rate times
        // the printed interval is the events within what two roundings move.
        EXPECT_NEAR(l.rate_hz * dt, static_cast<double>(l.events - prev_events), l.rate_hz * 2 * time_rounding + 0.05 * dt + 1e-6) << out;
        EXPECT_LE(l.in_gbps, limit_gbps) << out;
        EXPECT_LE(l.out_gbps, limit_gbps) << out;
        // A line is taken a little after its time, so the one printed at the warm-up's end may
        // hold a little of the window: it says it is warm-up, or partly.
        const bool warmup_mark = l.marks.find("(warm-up: not counted)") != std::string::npos;
        const bool partly_mark = l.marks.find("partly not counted)") != std::string::npos;
        const double eps = time_rounding + 1e-12;
        if (l.at < warmup_s - eps)
            EXPECT_TRUE(warmup_mark && !partly_mark) << out;
        else if (prev_at >= warmup_s - eps)
            EXPECT_FALSE(warmup_mark || partly_mark) << out;
        else
            EXPECT_TRUE(warmup_mark != partly_mark) << out; // the line across the warm-up's end
        if (prev_at >= warmup_s - eps && !warmup_mark && !partly_mark) {
            in_after_warmup += l.in_gbps * dt;
            if (covered_from < 0) covered_from = prev_at;
            covered_to = l.at;
        }
        prev_at = l.at;
        prev_events = l.events;
    }
    ASSERT_GT(in_total, 0) << out;
    if (exact) {
        ASSERT_NEAR(covered_from, warmup_s, 1e-9) << "the lines after the warm-up do not start at its end\n" << out;
        EXPECT_NEAR(in_after_warmup, in_total, 0.005 * in_total + 0.01 * (covered_to - covered_from)) << out;
    } else {
        const double per_interval = in_total / doc["results"]["bytes_window_s"].get<double>() * interval_s;
        EXPECT_NEAR(in_after_warmup, in_total, slack_intervals * per_interval) << out;
    }
}

} // namespace evb::test
