// `--launch-local N`: forks N copies of this very command line on this machine, one rank each,
// and hands rank 0 the bootstrap socket. Waits for all; reports every rank that failed; kills
// the rest if they outlive the run's deadline.
#pragma once
#include "time.hpp"

#include <cstdint>
#include <string>

namespace evb {

// run_deadline: the run's duration plus grace; ranks alive 40 s after it are killed. bootstrap:
// --bootstrap HOST:PORT, where the launcher serves rank 0's bootstrap (the ranks read the same
// flag); empty: a free port on 127.0.0.1. Throws ConfigError if it cannot listen there.
int launch_local(std::uint32_t ranks, Picoseconds run_deadline, const std::string& bootstrap, int argc, const char* const* argv);

} // namespace evb
