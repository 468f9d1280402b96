// `--launch-local N`: forks N copies of this very command line on this machine, one rank each,
// and hands rank 0 the bootstrap socket. Waits for all; reports every rank that failed; kills
// the rest if they outlive the run's deadline.
#pragma once
#include "config.hpp"

namespace evb {

int launch_local(const Config& config, int argc, const char* const* argv);

} // namespace evb
