// `evbench info` for UCX: its version and every transport and device UCT finds here, as
// `ucx_info -d` lists them (UCX_TLS chooses among them); the devices flags are checked against them.
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_resources.hpp"

#include "core/options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ucp/api/ucp.h>
#include <uct/api/uct.h>

namespace evb {

namespace {
void add_resources_of(uct_component_h component, const char* md_name, std::vector<UcxResource>& out) {
    uct_md_config_t* config = nullptr;
    if (uct_md_config_read(component, nullptr, nullptr, &config) != UCS_OK) return;
    uct_md_h md = nullptr;
    if (uct_md_open(component, md_name, config, &md) == UCS_OK) {
        uct_tl_resource_desc_t* resources = nullptr;
        unsigned count = 0;
        if (uct_md_query_tl_resources(md, &resources, &count) == UCS_OK) {
            for (unsigned r = 0; r < count; ++r)
                out.push_back({resources[r].tl_name, resources[r].dev_name, resources[r].dev_type == UCT_DEVICE_TYPE_NET});
            uct_release_tl_resource_list(resources);
        }
        uct_md_close(md);
    }
    uct_config_release(config);
}
} // namespace

std::vector<UcxResource> ucx_resources() {
    std::vector<UcxResource> out;
    uct_component_h* components = nullptr;
    unsigned count = 0;
    if (uct_query_components(&components, &count) != UCS_OK) return out;
    for (unsigned c = 0; c < count; ++c) {
        uct_component_attr_t attr{};
        attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
        if (uct_component_query(components[c], &attr) != UCS_OK) continue;
        std::vector<uct_md_resource_desc_t> mds(attr.md_resource_count);
        attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        attr.md_resources = mds.data();
        if (uct_component_query(components[c], &attr) != UCS_OK) continue;
        for (const auto& md : mds) add_resources_of(components[c], md.md_name, out);
    }
    uct_release_component_list(components);
    return out;
}

std::optional<std::string> ucx_devices_problem(const std::string& flag, const std::string& devices) {
    if (devices.empty() || devices == "all") return std::nullopt;
    std::vector<std::string> here;
    for (const auto& r : ucx_resources())
        if (r.network && std::ranges::find(here, r.device) == here.end()) here.push_back(r.device);
    for (const auto& name : split_list(devices))
        if (std::ranges::find(here, name) == here.end())
            return flag + " " + devices + ": UCX has no network device '" + name + "' here (" +
                (here.empty() ? std::string("it finds none") : fmt::format("it has {}", fmt::join(here, ", "))) +
                "; ucx_info -d lists them)";
    return std::nullopt;
}

DriverProbe UcxDriver::probe() const {
    DriverProbe p;
    std::vector<std::string> transports;
    for (const auto& r : ucx_resources()) transports.push_back(r.transport + "/" + r.device);
    const std::string version = ucp_get_version_string();
    p.lines.push_back("ucx " + version + ": transports " + (transports.empty() ? "none" : fmt::format("{}", fmt::join(transports, ", "))));
    p.json = {{"version", version}, {"transports", transports}};
    return p;
}

} // namespace evb
