// Human and machine output: the configuration header, one progress line per interval, the final
// per-node and system table (perftest/OSU-style columns), and the --json document.
#pragma once
#include "config.hpp"
#include "run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace evb {

void print_header(std::ostream& out, const Config& config, std::uint32_t ranks, const std::string& launcher);

// Rates over the last interval from cumulative system totals.
class ProgressPrinter {
public:
    // decimals: of the time stamp in seconds (6 for simulated runs of milliseconds).
    explicit ProgressPrinter(std::uint32_t nodes, int decimals = 2) : nodes_(nodes), decimals_(decimals) {}
    void line(std::ostream& out, Picoseconds now, const NodeStats& system);

private:
    std::uint32_t nodes_;
    int decimals_;
    Picoseconds last_time_{};
    NodeStats last_{};
};

void print_table(std::ostream& out, const Config& config, const RunResult& result);

nlohmann::json result_json(const Config& config, const RunResult& result);
// Writes the JSON document; throws std::runtime_error naming the file if it cannot.
void write_json_file(const std::string& path, const nlohmann::json& doc);

double gbps(std::uint64_t bytes, Picoseconds window);

} // namespace evb
