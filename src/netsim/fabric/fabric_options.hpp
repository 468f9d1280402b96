// Command-line description of a simulated fabric, shared by `evbench conflicts` and
// `evbench netsim`: a parametric fat tree, its deviations from the ideal, and a routing engine.
#pragma once
#include "netsim/fabric/fat_tree.hpp"
#include "netsim/fabric/routing.hpp"

#include <functional>
#include <string>
#include <vector>

namespace evb {
class OptionSet;
}

namespace evb::netsim {

struct FabricOptions {
    FatTreeSpec tree;
    std::uint32_t radix = 36; // ports per switch when the tree is sized for the hosts (tree.k == 0)
    std::vector<std::string> swaps; // "A:B"
    // Generated trees: the width and speed of host cables and of switch-to-switch cables
    // ("4xEDR", "4xHDR"); empty: the simulator's --link-rate.
    std::string host_links, switch_links;
    std::string routing = "ftree";
    std::uint64_t seed = 1; // random routing
    std::uint64_t lid_seed = 0; // 0: LIDs in cabling order
    std::string topology_file; // an ibnetdiscover dump instead of a generated tree
    std::vector<std::string> lft_files; // ibroute / dump_lfts dumps instead of a routing engine
    std::string host_order; // empty: "given" for generated trees, "hostname" for imported ones
    // Called right after the topology is built or read, before the routing engine or the LFT
    // dumps spend minutes on a fabric that cannot run: throws std::invalid_argument to refuse it.
    std::function<void(const Topology&)> check_size;
};

// The fabric flags, shared by `conflicts`, `fabric`, `netsim` and `--transport sim`.
void declare_fabric_options(OptionSet& set, FabricOptions& options);

struct Fabric {
    Topology topology;
    Routing routing;
    std::string routing_name; // the engine, or "LFTs from FILE"
    std::string host_order; // the order ranks were given
    std::vector<std::uint32_t> given_hosts; // the fabric's own order, before --host-order
};
// Throws std::invalid_argument (impossible parameters, DumpError for bad files) or RoutingError
// (unroutable pairs, loops).
Fabric build_fabric(FabricOptions options);

// The data rate of the fastest host cable of the fabric `options` describe, before it is built:
// --host-links for a generated tree, the dump's kinds for --topology (the file is read), and
// `default_gbps` where no kind is given or known (a bad one is refused when the fabric is built).
double fastest_host_link_gbps(const FabricOptions& options, double default_gbps);

} // namespace evb::netsim
