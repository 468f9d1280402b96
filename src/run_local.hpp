// A run with every rank in this process (in-process drivers such as `local`).
#pragma once
#include "config.hpp"
#include "run_result.hpp"

#include <ostream>

namespace evb {

struct DriverEntry;
// Prints header, progress and table to `out` (unless quiet) and returns the gathered result.
RunResult run_in_process(const Config& config, const DriverEntry& driver, std::ostream& out);

// Hard limit of a run: its duration (or, with only --events, 10 min) plus the grace period.
Picoseconds run_deadline(const Config& config);

} // namespace evb
