// dump_lfts / ibroute output against a fixed fabric (the k = 2 fat tree evbench generates).
#include "netsim/fabric/fabric_options.hpp"
#include "fuzz_input.hpp"
#include "netsim/fabric/lft_dump_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const evb::netsim::Fabric fabric = [] {
        evb::netsim::FabricOptions o;
        o.tree.k = 2;
        return evb::netsim::build_fabric(o);
    }();
    const std::string path = evb::fuzz::as_file(data, size, ".lfts");
    try {
        evb::netsim::read_lft_dumps({path}, fabric.topology);
    } catch (const std::invalid_argument&) {
    } catch (const evb::netsim::RoutingError&) {}
    return 0;
}
