// Linear forwarding tables (destination LID -> output port, per switch) from a routing engine,
// and the path a packet takes through them. Engines: ftree (OpenSM's, ftree_routing.hpp), minhop,
// up*/down*, random (a seeded choice among minimal ports).
#pragma once
#include "netsim/fabric/topology.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace evb::netsim {

constexpr std::uint16_t no_port = 0xFFFF;
using Lft = std::vector<std::uint16_t>; // index: destination LID

struct Routing {
    std::vector<Lft> lft; // per device index; empty for hosts
};

enum class RoutingEngine { ftree, minhop, updn, random };
RoutingEngine parse_routing_engine(const std::string& name); // throws std::invalid_argument
std::string to_string(RoutingEngine e);

// A pair that cannot be routed, a loop, or an LFT that points to an empty port.
// `device` and `lid` name the LFT entry at fault (device UINT32_MAX when it is not an entry).
struct RoutingError : std::runtime_error {
    explicit RoutingError(const std::string& what, std::uint32_t at_device = UINT32_MAX, std::uint32_t at_lid = 0)
        : std::runtime_error(what), device(at_device), lid(at_lid) {}
    std::uint32_t device;
    std::uint32_t lid;
};

Routing route(const Topology& topology, RoutingEngine engine, std::uint64_t seed = 1);

// Channels (device, output port) from host `src` to host `dst` (device indices); throws RoutingError.
std::vector<PortRef> trace(const Topology& topology, const Routing& routing, std::uint32_t src, std::uint32_t dst);
// Checks every host pair (tracing one source per first-hop switch, which decides the rest of the
// path); throws RoutingError naming a broken one.
void check_all_pairs(const Topology& topology, const Routing& routing);

} // namespace evb::netsim
