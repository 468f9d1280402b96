// `--launch-local N`: forks N copies of this very command line on this machine, one rank each,
// and hands rank 0 the bootstrap socket. Waits for all; reports every rank that failed; kills
// the rest if they outlive the run's deadline.
#pragma once
#include "time.hpp"

#include <cstdint>
#include <string>

namespace evb {

struct LocalLaunch {
    std::uint32_t ranks = 0;
    Picoseconds run_deadline{};   // the run's duration plus grace; ranks alive 40 s after it are killed
    Picoseconds grace{};          // ranks still running this long after rank 0 ended are killed (a stopped one)
    bool survive = false;         // --on-failure continue: a killed rank is reported, rank 0's exit code is the run's
    // --bootstrap HOST:PORT, where the launcher serves rank 0's bootstrap (the ranks read the
    // same flag); empty: a free port on 127.0.0.1.
    std::string bootstrap;
    std::string run_key_file;     // --run-key-file: the ranks read it; without it the launcher makes a key
};

// Throws ConfigError if it cannot listen at the bootstrap address (one another run holds is
// waited for, up to the set-up time).
int launch_local(const LocalLaunch& launch, int argc, const char* const* argv);

} // namespace evb
