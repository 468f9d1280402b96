// One run as a row of named cells, for scripts: `--format csv` (a header and the row) and
// `--format kv` (one line of key=value). The columns are tools/aggregate.py's, in its order, taken
// from the same --json document (tests/test_result_formats.cpp checks that the two agree).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace evb {

using ResultRow = std::vector<std::pair<std::string, std::string>>;

// `doc`: the run's --json document (result_json, with the driver's results); `commit`: the build's.
ResultRow result_row(const nlohmann::json& doc, const std::string& commit);
std::string csv_text(const ResultRow& row); // the header line and the row, RFC 4180 quoting
std::string key_value_line(const ResultRow& row); // "evbench: transport=tcp nodes=4 ...", a value with a space quoted

} // namespace evb
