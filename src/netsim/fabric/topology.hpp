// A fabric as the simulator sees it: hosts (HCAs) and switches with numbered ports, each port
// cabled to one peer port or left empty. Built by generators (fat_tree.hpp) or, later, importers.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace evb::netsim {

enum class DeviceKind { host, switch_ };

struct PortRef {
    std::uint32_t device;
    std::uint32_t port;
    bool operator==(const PortRef&) const = default;
};

struct Device {
    DeviceKind kind;
    std::string name;
    std::uint64_t guid = 0;
    std::uint32_t lid = 0;
    std::uint32_t level = 0; // switches: 0 leaf, 1 spine, 2 core
    std::vector<std::optional<PortRef>> ports; // hosts have one port; switch port i is IB port i + 1
    std::vector<std::string> link_kinds; // per port, "4xEDR" as a dump gives it; empty: unknown
    // Hosts: which port of its adapter the host's port is, and the adapter's port count.
    std::uint32_t adapter_port = 1, adapter_ports = 1;
};

// The InfiniBand port number of port index `port` of `d` (switches count from 1, port 0 being
// the switch itself; a host's one port is its adapter's cabled port).
inline std::uint32_t ib_port(const Device& d, std::uint32_t port) { return d.kind == DeviceKind::host ? d.adapter_port : port + 1; }

// The ports of `d` with a cable.
inline std::uint32_t cabled_ports(const Device& d) {
    return static_cast<std::uint32_t>(std::count_if(d.ports.begin(), d.ports.end(), [](const auto& p) { return p.has_value(); }));
}

class Topology {
public:
    std::uint32_t add_device(DeviceKind kind, std::string name, std::uint32_t ports, std::uint32_t level = 0);
    // Cables a.port <-> b.port; throws std::invalid_argument if either is taken or out of range.
    void connect(PortRef a, PortRef b);
    // Hosts first, then switches, from 1; a non-zero seed shuffles the hosts' LIDs the way a
    // subnet manager's discovery order does.
    void assign_lids(std::uint64_t shuffle_seed = 0);
    // Imported fabrics keep their own GUIDs and LIDs; index_lids() then checks them (unique,
    // non-zero) and builds the LID index. Throws std::invalid_argument.
    void set_guid(std::uint32_t device, std::uint64_t guid) { devices_.at(device).guid = guid; }
    void set_lid(std::uint32_t device, std::uint32_t lid) { devices_.at(device).lid = lid; }
    void index_lids();
    void set_link_kind(PortRef p, std::string kind) { devices_.at(p.device).link_kinds.at(p.port) = std::move(kind); }
    void set_adapter_port(std::uint32_t host, std::uint32_t port, std::uint32_t ports);
    // Switch levels from the hosts up: a switch with a host is a leaf (0), the others one more
    // than their nearest lower neighbour. For imported fabrics, which carry no levels.
    void assign_levels();
    // Rank order: `order` must be a permutation of hosts(); ranks follow it from then on.
    void order_hosts(const std::vector<std::uint32_t>& order);

    const std::vector<Device>& devices() const { return devices_; }
    const Device& device(std::uint32_t i) const { return devices_.at(i); }
    const std::vector<std::uint32_t>& hosts() const { return hosts_; } // in creation order
    const std::vector<std::uint32_t>& switches() const { return switches_; }
    std::optional<std::uint32_t> device_by_lid(std::uint32_t lid) const;
    std::optional<PortRef> peer(PortRef p) const { return devices_.at(p.device).ports.at(p.port); }
    std::uint32_t max_lid() const { return max_lid_; }

private:
    std::vector<Device> devices_;
    std::vector<std::uint32_t> hosts_, switches_;
    std::vector<std::uint32_t> by_lid_;
    std::uint32_t max_lid_ = 0;
};

} // namespace evb::netsim
