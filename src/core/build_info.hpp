// What this binary is: version, the git commit it was built from, how it was built (a speed
// figure names its build), the drivers compiled in.
// `evbench --version` prints it and every --json document carries it under "evbench".
#pragma once
#include <nlohmann/json.hpp>

#include <string>

namespace evb {

struct BuildInfo {
    std::string version; // the project's version (CMakeLists.txt)
    std::string commit; // 12 hex digits, "-dirty" with uncommitted changes, "unknown" outside git
    std::string build; // the CMake build type and what else shapes the code: "Release LTO PGO"
    std::string compiler; // "GCC 12.2.0"
    std::string drivers; // "local tcp sim verbs ..."
};

const BuildInfo& build_info();
std::string version_line(); // "evbench 0.1 (commit 1a2b3c4d5e6f; build: Release LTO, GCC 12.2.0; drivers: local tcp sim ...)"
nlohmann::json build_info_json();

} // namespace evb
