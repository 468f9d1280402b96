// Runs a real command (the evbench binary, a launcher) with a hang guard, capturing its output.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace evb::test {

struct CommandResult {
    int exit_code = -1; // -1: killed by the hang guard
    std::string out, err;
    double seconds = 0;
};

// Runs `command` through /bin/sh; kills its process group after `hang_guard_s` seconds.
CommandResult run_command(const std::string& command, double hang_guard_s = 120);
std::string evbench_binary();
std::string temp_path(const std::string& name);
// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's pick, closed again): a
// port derived from a process id can be an ephemeral port another connection holds.
int free_port();
std::string read_file(const std::string& path); // empty if missing
// The cells of one line of the tools' CSV (evbench --format csv, tools/aggregate.py), which quote
// no cell; an empty last cell (a run's point outside a scan) is a cell.
std::vector<std::string> csv_cells(const std::string& line);
// The output of a gtest run inside a test (the conformance suite in the VM), fit to print in a
// failure message: gtest's SKIPPED marker in it would make ctest report the failed test as
// skipped (gtest_discover_tests' SKIP_REGULAR_EXPRESSION matches any output), so it is lowered.
std::string inner_gtest_output(std::string text);
// How many times `what` occurs in `text` (overlapping ones too).
std::size_t count(const std::string& text, const std::string& what);
// `<command> --quiet --json <temp file named after name>` (an evbench run, under mpirun or as it
// is): its JSON document, or null after a failed expectation when it exits non-zero.
nlohmann::json run_json_command(const std::string& command, const std::string& name, std::string& report, double hang_guard_s = 300);
nlohmann::json run_json_command(const std::string& command, const std::string& name, double hang_guard_s = 300);
// `evbench <args> --quiet --json <temp file named after name>`: the same.
// For a simulated run, also checks that no node's byte rate exceeds the link's effective bandwidth.
nlohmann::json run_evbench_json(const std::string& args, const std::string& name, double hang_guard_s = 300);
// The same, with what the run printed (its report) in `report`.
nlohmann::json run_evbench_json(const std::string& args, const std::string& name, std::string& report, double hang_guard_s = 300);
// A simulated run's byte rates (what crossed the links, per packet) can never exceed b_eff (eq. 2.14).
void expect_link_rates_within_b_eff(const nlohmann::json& doc, const std::string& what);
// The --json file follows the shipped schema (schema/result-v1.schema.json, checked by
// tests/validate_result.py with Debian's python3-jsonschema); `what` names the run.
void expect_result_follows_the_schema(const std::string& json_file, const std::string& what);

} // namespace evb::test
