// Writing a result document (--json FILE), shared by every command.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace evb {

// What a run's --json result says it follows: schema/result-v1.schema.json (installed in
// PREFIX/share/evbench/schema). A field renamed, removed or given another meaning takes a new version.
inline constexpr const char* result_schema_version = "evbench-result-v1";

// Writes the JSON document with the build's identity under "evbench" (version, commit, drivers); throws std::runtime_error naming the file if it cannot.
void write_json_file(const std::string& path, const nlohmann::json& doc);

} // namespace evb
