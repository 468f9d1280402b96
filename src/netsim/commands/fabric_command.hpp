// `evbench fabric ...`: builds or imports a fabric, routes it (or reads its LFTs), and describes
// it: counts, link kinds, linear-shift conflicts under every host order; writes the topology
// (ibnetdiscover format), the LFTs (dump_lfts format) and a hostfile. Returns the exit code.
#pragma once
#include <ostream>

namespace evb::netsim {

// One line on what the command does, for its --help and `evbench --help`.
inline constexpr const char* fabric_summary = "describe, import and export a fabric, its routing and its rank order";
int fabric_command(int argc, const char* const* argv, std::ostream& out);

} // namespace evb::netsim
