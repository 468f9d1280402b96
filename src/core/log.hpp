// One named spdlog logger per subsystem ("evb", "tcp", "bootstrap", "launch"), all to stderr.
#pragma once
#include <spdlog/spdlog.h>

#include <string>

namespace evb {

spdlog::logger& logger(const std::string& name);
// Sets every logger's level from "trace".."off"; returns false for an unknown level.
bool set_log_level(const std::string& level);
// Prefix of every line: "evbench[rank 3]" once the rank is known.
void set_log_rank(int rank);

} // namespace evb
