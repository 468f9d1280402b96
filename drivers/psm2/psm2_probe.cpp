// `evbench info` for PSM2: whether it starts here (it needs an Omni-Path adapter).
#include "drivers/psm2/psm2_driver.hpp"

namespace evb {

DriverProbe Psm2Driver::probe() const {
    DriverProbe p;
    auto problem = Psm2Transport::start_problem();
    std::string why = problem ? *problem : "";
    if (why.rfind("psm2: ", 0) == 0) why.erase(0, 6);
    p.lines.push_back("psm2: " + (problem ? "not usable: " + why : std::string("usable")));
    p.json = {{"usable", !problem}, {"problem", problem ? nlohmann::json(*problem) : nlohmann::json(nullptr)}};
    return p;
}

} // namespace evb
