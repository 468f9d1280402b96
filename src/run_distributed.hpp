// A run with one rank per process (tcp, mpi, verbs, ...): bootstrap through rank 0, connect the
// data transport, drive this rank's units, agree on the end, gather statistics at rank 0.
#pragma once
#include "config.hpp"
#include "world.hpp"

#include <ostream>

namespace evb {

struct DriverEntry;
// Returns the process exit code: 0 ok, 1 run failed or data errors (rank 0 decides for the run).
int run_distributed(const Config& config, const DriverEntry& driver, const World& world, std::ostream& out);

} // namespace evb
