// Names of the shared-memory regions that libfabric's shm provider creates in /dev/shm, one per
// endpoint. Left to itself, shm names a region "<pid>:<uid>:<n>" and keeps it when its process is
// killed; when a later process is given the same pid, its fi_enable finds the old region and fails
// with EBUSY (seen in the test suite, where ranks are killed and pids wrap at 32768). So the
// driver names each region itself, uniquely, and removes the regions of its own dead processes.
#pragma once
#include <filesystem>
#include <string>

namespace evb {

// "evbench-ofi-<pid namespace>-<pid>-<64 random bits>": never the name of an earlier region.
std::string unique_shm_region_name();

// Removes the regions in `dir` named as above whose process is gone: same pid namespace (a pid of
// another namespace says nothing here) and no /proc/<pid>. Returns how many it removed.
std::size_t remove_shm_regions_of_dead_processes(const std::filesystem::path& dir = "/dev/shm");

} // namespace evb
