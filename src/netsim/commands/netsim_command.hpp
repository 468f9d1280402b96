// `evbench netsim ...`: simulate synthetic traffic on a fat tree with the flit-level IB model.
#pragma once
#include <ostream>

namespace evb::netsim {

int netsim_command(int argc, const char* const* argv, std::ostream& out);

} // namespace evb::netsim
