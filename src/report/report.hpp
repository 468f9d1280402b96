// Every run's human and machine output, in one place for every executor: the configuration
// header, one progress line per interval (as a RunObserver), the final per-node and system table
// (perftest/OSU-style columns), the --json document and the one error line.
#pragma once
#include "report/failure_report.hpp"
#include "exec/run_config.hpp"
#include "exec/run_observer.hpp"
#include "exec/run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace evb {

void print_header(std::ostream& out, const Config& config, std::uint32_t ranks, const std::string& launcher);

// One progress line's figures: the rates are over the interval since the line before (since the
// start for the first), the counts since the start.
struct ProgressLine {
    Picoseconds at{};
    std::uint64_t events = 0, in_flight = 0;
    double rate_hz = 0, in_gbps = 0, out_gbps = 0; // per BU and per RU
    std::string mark; // warm-up within the interval, or no event built yet
};

// Every executor's progress lines: the rates of an interval are what the counts since the start
// grew by over it, the one definition for every transport and the simulator.
class ProgressPrinter {
public:
    // decimals: of the time stamp in seconds (6 for simulated runs of milliseconds).
    // builders, readouts: the BUs and RUs the input and output rates are divided by.
    // count_from: the end of --warmup: a line whose interval reaches into it is marked.
    ProgressPrinter(std::uint32_t builders, std::uint32_t readouts, int decimals = 2, Picoseconds count_from = {})
        : builders_(builders), readouts_(readouts), decimals_(decimals), count_from_(count_from) {}
    ProgressLine next(Picoseconds now, const ProgressCounts& since_start);
    void line(std::ostream& out, Picoseconds now, const ProgressCounts& since_start);

private:
    std::uint32_t builders_, readouts_;
    int decimals_;
    Picoseconds count_from_;
    Picoseconds last_time_{};
    ProgressCounts last_{};
};

// The console side of a run: header and progress lines, unless --quiet.
class ConsoleReport final : public RunObserver {
public:
    ConsoleReport(std::ostream& out, const Config& config, bool simulated_time)
        : out_(out), config_(config), progress_(config.bu_count(), config.ru_count(), simulated_time ? 6 : 2, config.warmup) {}
    void started(std::uint32_t ranks, const std::string& where, const std::vector<std::string>& details) override;
    void progress(Picoseconds now, const ProgressCounts& since_start) override;
    // Every progress interval's totals, printed or not (the failure report's recovery time).
    const std::vector<ProgressSample>& samples() const { return samples_; }

private:
    std::ostream& out_;
    const Config& config_;
    ProgressPrinter progress_;
    std::vector<ProgressSample> samples_;
};

// Builder nodes whose BU built no event in the window, but for those lost to a failure: while
// any is idle, the window still holds the start-up (event building: else 0).
std::uint32_t idle_builders(const Config& config, const RunResult& result);

// samples: the progress samples, for the failure report (failure_report.hpp).
// The node rows of the final table (--rows): indices into result.nodes.
std::vector<std::size_t> table_rows(const Config& config, const RunResult& result);
void print_table(std::ostream& out, const Config& config, const RunResult& result, const std::vector<ProgressSample>& samples = {});

// config_echo: the effective configuration (every declared option and derived values);
// invocation: how the run was asked for (CommandLine::invocation), which `--config` reads back.
nlohmann::json result_json(const nlohmann::json& config_echo, const nlohmann::json& invocation, const Config& config,
                           const RunResult& result, const std::vector<ProgressSample>& samples = {});

// Prints what the run produced and returns the exit code: at the reporting rank the driver's
// extra text, the table, --json and, on failure or data errors, one "evbench: error:" line; at
// another rank its failure as "evbench[rank R]: error: ...".
int report_outcome(std::ostream& out, std::ostream& err, const Config& config, const nlohmann::json& config_echo,
                   const nlohmann::json& invocation, const RunOutcome& outcome, const std::vector<ProgressSample>& samples = {});

} // namespace evb
