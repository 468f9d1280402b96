// `evbench info`: one page of what this machine offers for event building (CPUs, NUMA nodes,
// RDMA devices and ports, interfaces, huge pages, the locked-memory limit) and what each driver
// compiled in finds usable here; like ibv_devinfo, fi_info, ucx_info -d and lstopo in one.
#pragma once
#include <ostream>

namespace evb {

class DriverRegistry;

// One line on what the command does, for its --help and `evbench --help`.
inline constexpr const char* info_summary = "what this machine offers for event building, and what each driver finds usable here";
int info_command(int argc, const char* const* argv, const DriverRegistry& drivers, std::ostream& out);

} // namespace evb
