#include "netsim/engine/sim_model.hpp"

namespace evb::netsim {

SimMode parse_sim_mode(const std::string& name) {
    if (name == "flit") return SimMode::flit;
    if (name == "aggregated") return SimMode::aggregated;
    if (name == "packet") return SimMode::packet;
    throw std::invalid_argument("unknown simulation mode '" + name + "' (choose flit|aggregated|packet)");
}

std::string to_string(SimMode mode) {
    switch (mode) {
    case SimMode::flit: return "flit";
    case SimMode::aggregated: return "aggregated";
    case SimMode::packet: return "packet";
    }
    return "?";
}

SimOptions checked(SimOptions options) {
    options.ib.validate();
    if (options.mode == SimMode::aggregated && (options.aggregation == 0 || options.aggregation > 4096))
        throw std::invalid_argument("flit aggregation must be within 1..4096");
    if (options.mode == SimMode::flit) options.aggregation = 1;
    if (options.parts == 0 || options.parts > 256) throw std::invalid_argument("the fabric can be cut into 1..256 parts");
    if (options.threads == 0 || options.threads > options.parts)
        throw std::invalid_argument("the fabric's parts run on 1.." + std::to_string(options.parts) + " threads, not " +
                                    std::to_string(options.threads));
    if (options.parts > 1 && options.mode != SimMode::packet)
        throw std::invalid_argument("a fabric cut into parts runs in packet mode only, not " + to_string(options.mode) + " mode");
    if (options.parts > 1 && (options.ib.link_latency.count() == 0 || options.ib.credit_latency.count() == 0))
        throw std::invalid_argument(
            "a fabric cut into parts needs link and credit latencies above zero (its parts run apart for that long)");
    return options;
}

} // namespace evb::netsim
