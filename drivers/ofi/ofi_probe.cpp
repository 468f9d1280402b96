// `evbench info` for libfabric: its version, every provider present, and those the driver fits.
#include "drivers/ofi/ofi_driver.hpp"

#include <rdma/fabric.h>

namespace evb {

DriverProbe OfiDriver::probe() const {
    DriverProbe p;
    const std::uint32_t v = fi_version();
    const std::string version = std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
    std::vector<std::string> present;
    fi_info* all = nullptr;
    if (fi_getinfo(FI_VERSION(1, 9), nullptr, nullptr, 0, nullptr, &all) == 0)
        for (fi_info* i = all; i; i = i->next)
            if (std::string name = i->fabric_attr->prov_name; std::ranges::find(present, name) == present.end()) present.push_back(name);
    if (all) fi_freeinfo(all);
    const auto usable = OfiTransport::usable_providers();
    auto joined = [](const std::vector<std::string>& names) {
        std::string out;
        for (const auto& s : names) out += (out.empty() ? "" : ", ") + s;
        return out.empty() ? std::string("none") : out;
    };
    p.lines.push_back("libfabric " + version + ": providers " + joined(present));
    p.lines.push_back("  usable by --transport ofi (RDM, RMA, remote CQ data, send-after-write order): " + joined(usable));
    p.json = {{"version", version}, {"providers", present}, {"usable", usable}};
    return p;
}

} // namespace evb
