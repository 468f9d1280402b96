#include "netsim/fabric/topology.hpp"

#include "core/hash.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>
#include <utility>

namespace evb::netsim {

std::uint32_t Topology::add_device(DeviceKind kind, std::string name, std::uint32_t ports, std::uint32_t level) {
    auto index = static_cast<std::uint32_t>(devices_.size());
    Device d;
    d.kind = kind;
    d.name = std::move(name);
    d.guid = 0x0002c90300000000ull + (std::uint64_t{index} + 1) * 16; // room for port GUIDs (node GUID + port)
    d.level = level;
    d.ports.resize(ports);
    d.link_kinds.resize(ports);
    devices_.push_back(std::move(d));
    (kind == DeviceKind::host ? hosts_ : switches_).push_back(index);
    return index;
}

void Topology::connect(PortRef a, PortRef b) {
    auto check = [&](PortRef p) {
        if (p.device >= devices_.size() || p.port >= devices_[p.device].ports.size())
            throw std::invalid_argument("no port " + std::to_string(p.port) + " on device " + std::to_string(p.device));
        if (devices_[p.device].ports[p.port])
            throw std::invalid_argument("port " + std::to_string(p.port) + " of " + devices_[p.device].name + " is already cabled");
    };
    check(a);
    check(b);
    devices_[a.device].ports[a.port] = b;
    devices_[b.device].ports[b.port] = a;
}

void Topology::assign_lids(std::uint64_t shuffle_seed) {
    std::uint32_t lid = 1;
    std::vector<std::uint32_t> order = hosts_;
    if (shuffle_seed)
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[mix64(shuffle_seed, i) % i]);
    for (auto h : order) devices_[h].lid = lid++;
    for (auto s : switches_) devices_[s].lid = lid++;
    index_lids();
}

void Topology::index_lids() {
    max_lid_ = 0;
    for (const auto& d : devices_) {
        if (d.lid == 0 || d.lid >= 0xC000)
            throw std::invalid_argument(d.name + " has no valid unicast LID (" + std::to_string(d.lid) + ")");
        max_lid_ = std::max(max_lid_, d.lid);
    }
    by_lid_.assign(max_lid_ + 1, UINT32_MAX);
    for (std::uint32_t i = 0; i < devices_.size(); ++i) {
        auto& slot = by_lid_[devices_[i].lid];
        if (slot != UINT32_MAX)
            throw std::invalid_argument("LID " + std::to_string(devices_[i].lid) + " is used by both " + devices_[slot].name + " and " +
                                        devices_[i].name);
        slot = i;
    }
}

void Topology::set_adapter_port(std::uint32_t host, std::uint32_t port, std::uint32_t ports) {
    devices_.at(host).adapter_port = port;
    devices_.at(host).adapter_ports = ports;
}

void Topology::assign_levels() {
    constexpr std::uint32_t unknown = UINT32_MAX;
    std::vector<std::uint32_t> level(devices_.size(), unknown);
    std::deque<std::uint32_t> queue;
    for (auto h : hosts_)
        if (auto leaf = devices_[h].ports.at(0);
            leaf && devices_[leaf->device].kind == DeviceKind::switch_ && level[leaf->device] == unknown) {
            level[leaf->device] = 0;
            queue.push_back(leaf->device);
        }
    while (!queue.empty()) {
        std::uint32_t s = queue.front();
        queue.pop_front();
        for (const auto& p : devices_[s].ports)
            if (p && devices_[p->device].kind == DeviceKind::switch_ && level[p->device] == unknown) {
                level[p->device] = level[s] + 1;
                queue.push_back(p->device);
            }
    }
    for (auto s : switches_) devices_[s].level = level[s] == unknown ? 0 : level[s];
}

void Topology::order_hosts(const std::vector<std::uint32_t>& order) {
    std::vector<std::uint32_t> sorted = order, current = hosts_;
    std::sort(sorted.begin(), sorted.end());
    std::sort(current.begin(), current.end());
    if (sorted != current) throw std::invalid_argument("a host order must list every host exactly once");
    hosts_ = order;
}

std::optional<std::uint32_t> Topology::device_by_lid(std::uint32_t lid) const {
    if (lid == 0 || lid >= by_lid_.size() || by_lid_[lid] == UINT32_MAX) return std::nullopt;
    return by_lid_[lid];
}

} // namespace evb::netsim
