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
    return options;
}

} // namespace evb::netsim
