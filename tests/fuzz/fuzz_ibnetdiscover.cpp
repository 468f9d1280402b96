// ibnetdiscover dumps (and ibsim net files): parsed, and when they parse, ordered and routed.
#include "fuzz_input.hpp"
#include "netsim/fabric/host_order.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/routing.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(evb::fuzz::text_of(data, size));
    try {
        auto topology = evb::netsim::parse_ibnetdiscover(in, "fuzz.txt");
        if (topology.hosts().size() <= 64) {
            topology.order_hosts(evb::netsim::order_of_hosts(topology, evb::netsim::HostOrder::cabling));
            evb::netsim::route(topology, evb::netsim::RoutingEngine::minhop, 1);
        }
    } catch (const std::invalid_argument&) {
    } catch (const evb::netsim::RoutingError&) {}
    return 0;
}
