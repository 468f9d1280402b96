// Parametric 2-level fat tree (folded Clos, thesis table 3.1): 2k leaves of 2k ports (k down to
// hosts, k up, one to each of the k spines, or k / s to each of s spines), up to 2k^2 hosts. The 3-level tree keeps the radix
// 2k: 2k pods of k leaves and k aggregation switches, k^2 cores, up to 2k^3 hosts. Real clusters deviate: leaves
// with fewer hosts, missing hosts, and host cables swapped between ports.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <utility>
#include <vector>

namespace evb::netsim {

struct FatTreeSpec {
    std::uint32_t k = 4;
    std::uint32_t levels = 2; // 3: 2k pods of k leaves + k aggregation switches, k^2 cores
    std::uint32_t leaves = 0; // 0: all (2k, or 2k^2 with 3 levels)
    // 2 levels: 0 is k spines, one cable from every leaf to each. Fewer spines take k / spines
    // parallel cables from each leaf (leaf up-port k + j to spine j mod spines), as a site with
    // few leaves buys them; spines must divide k, and hold at most 2 spines leaves.
    std::uint32_t spines = 0;
    std::vector<std::uint32_t> hosts_per_leaf; // empty: k on every leaf
    std::vector<std::uint32_t> missing_hosts; // host slots (leaf*k + port) left empty
    std::vector<std::pair<std::uint32_t, std::uint32_t>> swapped_hosts; // host i cabled to j's slot and back
};

// The tree for `hosts` hosts from switches of `radix` ports (k = radix / 2), as one would be
// bought: leaves of k hosts, as many as the hosts need (the last one may have free ports), all k
// spines of a 2-level tree, or with 3 levels the pods those leaves fill and all k^2 cores.
// levels 0: 2 while the hosts fit (up to radix^2 / 2), else 3 (up to radix^3 / 4). Throws
// std::invalid_argument for an odd or out-of-range radix and for hosts that do not fit.
FatTreeSpec sized_fat_tree(std::uint32_t hosts, std::uint32_t radix, std::uint32_t levels = 0);

// Hosts are created in rank order 0..H-1 (slot order, skipping missing ones), so a swapped
// cable puts rank i on another slot. Throws std::invalid_argument on impossible parameters.
Topology build_fat_tree(const FatTreeSpec& spec);

} // namespace evb::netsim
