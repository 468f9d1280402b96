// Which host each rank runs on. A linear shift's conflicts depend on it (paper 003 sec. 4.1
// reordered nodes to avoid them), so evbench can order ranks like a launcher would and write the
// order as a hostfile for mpirun or srun.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace evb::netsim {

enum class HostOrder {
    given, // the fabric's own order: a generated tree's ranks, an imported file's node order
    hostname, // host names in natural order (node2 before node10), as Slurm lists nodes
    lid, // by LID, the subnet manager's discovery order
    cabling, // leaf by leaf, port by port; leaves in the order they are cabled to the level above
};
HostOrder parse_host_order(const std::string& name); // throws std::invalid_argument

// The hosts of `topology` (device indices) in rank order.
std::vector<std::uint32_t> order_of_hosts(const Topology& topology, HostOrder order);

// "node2" < "node10": digit runs compare as numbers.
bool natural_less(const std::string& a, const std::string& b);

// One host name per line, rank 0 first: SLURM_HOSTFILE with `srun --distribution=arbitrary`, or
// `mpirun --hostfile FILE --map-by node` (every name once, so rank i lands on line i).
void write_hostfile(const Topology& topology, std::ostream& out);

} // namespace evb::netsim
