// Fabrics in the text format of `ibnetdiscover` (infiniband-diags), which ibsim also reads as its
// net file: node blocks ("Switch 36 "S-<guid>" # "desc" ... lid 3"), one line per cabled port
// ("[3] "H-<guid>"[1](portguid) # "desc" lid 7 4xEDR"), GUID lines before each node.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <iosfwd>
#include <string>

namespace evb::netsim {

// Reads switches, adapters (one simulated host per adapter: its one cabled port), cables, GUIDs,
// LIDs, node descriptions and link kinds. Without LIDs in the file (an ibsim net file), LIDs are
// assigned as assign_lids() does. Throws DumpError "file:line: reason".
Topology read_ibnetdiscover(const std::string& path);
Topology parse_ibnetdiscover(std::istream& in, const std::string& name);

// Writes `topology` so that ibnetdiscover users, and ibsim as a net file, read it back.
void write_ibnetdiscover(const Topology& topology, std::ostream& out);

// The host name in a node description ("node17 mlx5_0" -> "node17").
std::string hostname_of(const Device& host);

} // namespace evb::netsim
