// The MPI_Alltoall baseline (paper 003 fig. 2): every rank sends one fragment-size block to
// every rank, again and again for --duration (or --events iterations), so each rank receives
// N f bytes per iteration, as a BU does per event. Rates use the event builder's accounting.
#pragma once
#include "config.hpp"
#include "world.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb {

// Runs on every rank of an mpirun / srun job; rank 0 prints (and writes --json with the echoed
// configuration). Returns the exit code.
int run_alltoall_baseline(const Config& config, const nlohmann::json& config_echo, const World& world, std::ostream& out);

} // namespace evb
