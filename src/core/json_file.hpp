// Writing a result document (--json FILE), shared by every command.
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace evb {

// Writes the JSON document with the build's identity under "evbench" (version, commit, drivers); throws std::runtime_error naming the file if it cannot.
void write_json_file(const std::string& path, const nlohmann::json& doc);

} // namespace evb
