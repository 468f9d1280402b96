// The MPI_Alltoall baseline (paper 003 fig. 2): every rank sends one fragment-size block to
// every rank, again and again for --duration (or --events iterations), so each rank receives
// N f bytes per iteration, as a BU does per event. Rates use the event builder's accounting.
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace evb {

// One baseline run, from the run's configuration (the registry fills it).
struct AlltoallRun {
    std::size_t block_bytes = 0; // --fragment-size: what each rank sends each rank
    std::uint64_t iterations = 0; // --events; 0: for `seconds`
    double seconds = 0; // --duration
    std::uint32_t launched_ranks = 0; // what the launcher started, which MPI must see too
    std::string json_file; // --json: written by rank 0 with `config_echo`
    nlohmann::json config_echo;
    bool quiet = false; // --quiet: the summary line alone
};

// Runs on every rank of an mpirun / srun job; rank 0 prints (and writes the JSON). Returns the
// exit code.
int run_alltoall_baseline(const AlltoallRun& run, std::ostream& out);

} // namespace evb
