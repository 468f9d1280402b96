// Linear forwarding tables in the text format of `ibroute LID` and `dump_lfts` (infiniband-diags):
// per switch a block "Unicast lids [0x0-0x..] of switch ... guid 0x.. (desc):", one line
// "0xLID PORT : (...)" per destination, and "N valid lids dumped".
#pragma once
#include "netsim/fabric/routing.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace evb::netsim {

// Reads the tables of every switch of `topology` from one or more dumps (a dump_lfts output, or
// one ibroute output per switch), matching switches by GUID, and checks every host pair's path.
// Throws DumpError "file:line: reason" (malformed or truncated block, a port the switch does not
// have or that is not cabled, a switch without a table, a loop, an unreachable destination).
Routing read_lft_dumps(const std::vector<std::string>& paths, const Topology& topology);

// Writes `routing` as dump_lfts does: one block per switch, in device order.
void write_lft_dump(const Topology& topology, const Routing& routing, std::ostream& out);

} // namespace evb::netsim
