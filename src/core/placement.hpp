// NUMA and CPU placement (libnuma, hwloc where present). Best effort: a machine without NUMA
// or without permission leaves placement to the kernel.
#pragma once
#include <cstddef>
#include <string>

namespace evb {

void bind_to_numa_node(void* ptr, std::size_t len, int numa_node);
// Pins the calling thread to one CPU; returns false (and leaves it unpinned) if that fails.
bool pin_current_thread(int cpu);
// One-line description of the machine's topology for the run header ("2 cores, 1 NUMA node").
std::string describe_topology();

} // namespace evb
