// `evbench conflicts ...`: builds a fat tree, routes it, and prints the linear-shift conflict
// table (flows on the most loaded channel per phase). Returns the exit code (2 on bad input).
#pragma once
#include <ostream>

namespace evb::netsim {

// One line on what the command does, for its --help and `evbench --help`.
inline constexpr const char* conflicts_summary = "linear-shift conflicts of a routed fat tree";
int conflicts_command(int argc, const char* const* argv, std::ostream& out);

} // namespace evb::netsim
