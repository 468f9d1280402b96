// The fat-tree routing engine of OpenSM (`opensm -R ftree` with the top switches as roots),
// re-derived so that evbench's tables equal a real subnet manager's entry for entry: on 2- and
// 3-level trees, partial trees, and trees with several parallel cables between two switches.
//
// The idea (Zahavi's ftree): destinations are taken leaf by leaf, in the order of an index the
// engine gives every switch; from each destination's leaf the route climbs to the least loaded
// upper switch (counting routes per port group, then per cable) and every switch below that one
// is given an upward route to it, balanced over its cables. Leaves with fewer hosts than the
// fullest leaf route "dummy" destinations so that the counters stay aligned across leaves.
#pragma once
#include "netsim/fabric/routing.hpp"

namespace evb::netsim {

// Host LIDs only (switch LIDs are not routed). Links between switches of one rank are not used.
// Throws RoutingError when the fabric has more than 255 switches in one index position.
Routing route_ftree(const Topology& topology);

} // namespace evb::netsim
