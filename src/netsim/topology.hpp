// A fabric as the simulator sees it: hosts (HCAs) and switches with numbered ports, each port
// cabled to one peer port or left empty. Built by generators (fat_tree.hpp) or, later, importers.
#pragma once
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
    std::uint32_t level = 0;                     // switches: 0 leaf, 1 spine, 2 core
    std::vector<std::optional<PortRef>> ports;   // hosts have one port
};

class Topology {
public:
    std::uint32_t add_device(DeviceKind kind, std::string name, std::uint32_t ports, std::uint32_t level = 0);
    // Cables a.port <-> b.port; throws std::invalid_argument if either is taken or out of range.
    void connect(PortRef a, PortRef b);
    // Hosts first, then switches, from 1; a non-zero seed shuffles the hosts' LIDs the way a
    // subnet manager's discovery order does.
    void assign_lids(std::uint64_t shuffle_seed = 0);

    const std::vector<Device>& devices() const { return devices_; }
    const Device& device(std::uint32_t i) const { return devices_.at(i); }
    const std::vector<std::uint32_t>& hosts() const { return hosts_; }         // in creation order
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
