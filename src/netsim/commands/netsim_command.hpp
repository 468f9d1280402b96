// `evbench netsim ...`: simulate synthetic traffic on a fat tree with the flit-level IB model.
#pragma once
#include <ostream>

namespace evb::netsim {

// One line on what the command does, for its --help and `evbench --help`.
inline constexpr const char* netsim_summary = "flit-level InfiniBand simulation of synthetic traffic on a fat tree";
int netsim_command(int argc, const char* const* argv, std::ostream& out);

} // namespace evb::netsim
