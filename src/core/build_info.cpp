#include "core/build_info.hpp"

#include "build_info_generated.hpp"

namespace evb {

const BuildInfo& build_info() {
    static const BuildInfo info{EVB_VERSION, EVB_GIT_COMMIT, EVB_BUILD_KIND, EVB_COMPILER, EVB_DRIVERS};
    return info;
}

std::string version_line() {
    const auto& b = build_info();
    return "evbench " + b.version + " (commit " + b.commit + "; build: " + b.build + ", " + b.compiler + "; drivers: " + b.drivers + ")";
}

nlohmann::json build_info_json() {
    const auto& b = build_info();
    return {{"version", b.version}, {"commit", b.commit}, {"build", b.build}, {"compiler", b.compiler}, {"drivers", b.drivers}};
}

} // namespace evb
