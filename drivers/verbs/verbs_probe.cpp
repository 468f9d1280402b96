// `evbench info` for verbs: each device's limits as rdma-core reports them (ports, GIDs and
// NUMA placement are in the machine's section, read from sysfs).
#include "drivers/verbs/verbs_driver.hpp"

#include <infiniband/verbs.h>

namespace evb {

DriverProbe VerbsDriver::probe() const {
    DriverProbe p;
    p.json = nlohmann::json::array();
    int count = 0;
    ibv_device** devices = ibv_get_device_list(&count);
    for (int d = 0; d < count; ++d) {
        const std::string name = ibv_get_device_name(devices[d]);
        ibv_context* context = ibv_open_device(devices[d]);
        ibv_device_attr attr{};
        if (!context || ibv_query_device(context, &attr) != 0) {
            p.lines.push_back("verbs device " + name + ": cannot be opened");
            p.json.push_back({{"name", name}, {"open", false}});
        } else {
            p.lines.push_back("verbs device " + name + ": firmware " + attr.fw_ver + ", " + std::to_string(attr.phys_port_cnt) +
                              " port(s), up to " + std::to_string(attr.max_qp) + " QPs of " + std::to_string(attr.max_qp_wr) +
                              " work requests, " + std::to_string(attr.max_mr) + " memory regions");
            p.json.push_back({{"name", name},
                              {"open", true},
                              {"firmware", attr.fw_ver},
                              {"ports", attr.phys_port_cnt},
                              {"max_qp", attr.max_qp},
                              {"max_qp_wr", attr.max_qp_wr},
                              {"max_mr", attr.max_mr},
                              {"max_mr_size", attr.max_mr_size}});
        }
        if (context) ibv_close_device(context);
    }
    if (devices) ibv_free_device_list(devices);
    if (count == 0) p.lines.push_back("verbs: no RDMA device (soft-RoCE: rdma link add rxe0 type rxe netdev IF)");
    p.json = {{"devices", p.json}};
    return p;
}

} // namespace evb
