// Rank discovery: who am I and how many are we, from evbench's own launcher (EVBENCH_RANK/SIZE),
// mpirun (OMPI_COMM_WORLD_*), srun (SLURM_PROCID/SLURM_NTASKS) or a PMI/PMIx environment.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace evb {

// World::launcher of the ranks evbench's own launcher (--launch-local) started.
inline constexpr const char* local_launcher_name = "evbench --launch-local";

struct World {
    std::uint32_t rank = 0;
    std::uint32_t size = 1;
    std::string launcher; // "evbench --launch-local", "mpirun", "srun", "pmix"
    bool single_host = false; // every rank on this machine: 127.0.0.1 works for rank 0
    std::string job_key; // distinguishes concurrent jobs when deriving a bootstrap port
    std::uint32_t local_rank = 0; // among the ranks on this host (placement spreads them over cores)
    std::uint32_t local_ranks = 1;
};

// An environment variable's value, or null when it is unset or empty.
const char* environment_value(const char* name);

// nullopt when no launcher environment is present; throws ConfigError on a malformed one.
std::optional<World> detect_world();

// Endpoint of rank 0's bootstrap service: --bootstrap, else $EVBENCH_BOOTSTRAP, else (single
// host or Slurm) a host plus a port derived from the job. Throws ConfigError if it cannot tell.
std::string bootstrap_endpoint(const std::string& flag, const World& world);
// The endpoint the user gave: --bootstrap, else $EVBENCH_BOOTSTRAP, else empty.
std::string given_bootstrap(const std::string& flag);

} // namespace evb
