// `--launch-local N`: forks N copies of this very command line on this machine, one rank each,
// and hands rank 0 the bootstrap socket. Waits for all; reports every rank that failed; kills
// the rest if they outlive the run's deadline. With `--launch-hosts M --host-index I` it is one of
// M such launchers, one per host, and forks ranks I N .. I N + N - 1 of a run of M N; only host 0
// serves the bootstrap.
#pragma once
#include "core/time.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace evb {

// Ranks one launcher forks, and a run of several hosts has: far above what a layout holds.
inline constexpr std::uint32_t max_launched_ranks = 1u << 17;

struct LocalLaunch {
    std::uint32_t ranks = 0; // forked here
    std::uint32_t first_rank = 0; // the run's rank of the first one forked here
    std::uint32_t run_size = 0; // every host's ranks
    Picoseconds run_deadline{}; // the run's duration plus grace; ranks alive 40 s after it are killed
    Picoseconds grace{}; // ranks still running this long after rank 0 ended are killed (a stopped one)
    bool survive = false; // --on-failure continue: a killed rank is reported, rank 0's exit code is the run's
    // --bootstrap HOST:PORT, where the launcher serves rank 0's bootstrap (the ranks read the
    // same flag); empty: a free port on 127.0.0.1.
    std::string bootstrap;
    std::string run_key_file; // --run-key-file: the ranks read it; without it the launcher makes a key
};

// Why a launch of `per_host` ranks on each of `hosts` hosts cannot run, or nothing: the counts
// are bounded, the index is below the host count, and a run of several hosts names rank 0's host
// (--bootstrap) and a key every host shares (--run-key-file or $EVBENCH_RUN_KEY), as a key made
// here would be this host's alone.
std::optional<std::string> multi_host_refusal(std::uint32_t per_host, std::uint32_t hosts, std::uint32_t index,
                                              const std::string& bootstrap, const std::string& run_key_file);

// Throws ConfigError if it cannot listen at the bootstrap address (one another run holds is
// waited for, up to the set-up time).
int launch_local(const LocalLaunch& launch, int argc, const char* const* argv);

} // namespace evb
