// `evbench info` for UCX: its version and every transport and device UCT finds here, as
// `ucx_info -d` lists them (UCX_TLS chooses among them).
#include "ucx_driver.hpp"

#include <ucp/api/ucp.h>
#include <uct/api/uct.h>

namespace evb {

namespace {
std::vector<std::string> transports_of(uct_component_h component, const char* md_name) {
    std::vector<std::string> out;
    uct_md_config_t* config = nullptr;
    if (uct_md_config_read(component, nullptr, nullptr, &config) != UCS_OK) return out;
    uct_md_h md = nullptr;
    if (uct_md_open(component, md_name, config, &md) == UCS_OK) {
        uct_tl_resource_desc_t* resources = nullptr;
        unsigned count = 0;
        if (uct_md_query_tl_resources(md, &resources, &count) == UCS_OK) {
            for (unsigned r = 0; r < count; ++r) out.push_back(std::string(resources[r].tl_name) + "/" + resources[r].dev_name);
            uct_release_tl_resource_list(resources);
        }
        uct_md_close(md);
    }
    uct_config_release(config);
    return out;
}
} // namespace

DriverProbe UcxDriver::probe() const {
    DriverProbe p;
    std::vector<std::string> transports;
    uct_component_h* components = nullptr;
    unsigned count = 0;
    if (uct_query_components(&components, &count) == UCS_OK) {
        for (unsigned c = 0; c < count; ++c) {
            uct_component_attr_t attr{};
            attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
            if (uct_component_query(components[c], &attr) != UCS_OK) continue;
            std::vector<uct_md_resource_desc_t> mds(attr.md_resource_count);
            attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
            attr.md_resources = mds.data();
            if (uct_component_query(components[c], &attr) != UCS_OK) continue;
            for (const auto& md : mds)
                for (auto& t : transports_of(components[c], md.md_name)) transports.push_back(std::move(t));
        }
        uct_release_component_list(components);
    }
    std::string list;
    for (const auto& t : transports) list += (list.empty() ? "" : ", ") + t;
    const std::string version = ucp_get_version_string();
    p.lines.push_back("ucx " + version + ": transports " + (list.empty() ? "none" : list));
    p.json = {{"version", version}, {"transports", transports}};
    return p;
}

} // namespace evb
