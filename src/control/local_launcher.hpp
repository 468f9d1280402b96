// `--launch-local N`: forks N copies of this very command line on this machine, one rank each,
// and hands rank 0 the bootstrap socket. Waits for all; reports every rank that failed; kills
// the rest if they outlive the run's deadline.
#pragma once
#include "time.hpp"

#include <cstdint>

namespace evb {

// run_deadline: the run's duration plus grace; ranks alive 40 s after it are killed.
int launch_local(std::uint32_t ranks, Picoseconds run_deadline, int argc, const char* const* argv);

} // namespace evb
