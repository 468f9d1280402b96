// What UCT finds on this machine, as `ucx_info -d` lists it: every transport on every device.
// `evbench info` prints them; --ucx-devices and --rails are checked against the network ones.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace evb {

struct UcxResource {
    std::string transport, device; // "tcp", "eth0"
    bool network = false; // a device UCX_NET_DEVICES may name
};

std::vector<UcxResource> ucx_resources();

// Why `devices` (as UCX_NET_DEVICES: names, comma-separated, or `all`) names a network device
// UCX does not have here, naming `flag`; nothing when each is here.
std::optional<std::string> ucx_devices_problem(const std::string& flag, const std::string& devices);

} // namespace evb
