#include "topology.hpp"

#include "hash.hpp"

#include <stdexcept>
#include <utility>

namespace evb::netsim {

std::uint32_t Topology::add_device(DeviceKind kind, std::string name, std::uint32_t ports, std::uint32_t level) {
    auto index = static_cast<std::uint32_t>(devices_.size());
    Device d{kind, std::move(name), 0x0002c90300000000ull + index + 1, 0, level, {}};
    d.ports.resize(ports);
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
    by_lid_.assign(devices_.size() + 1, UINT32_MAX);
    std::vector<std::uint32_t> order = hosts_;
    if (shuffle_seed)
        for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[mix64(shuffle_seed, i) % i]);
    for (auto h : order) devices_[h].lid = lid++;
    for (auto s : switches_) devices_[s].lid = lid++;
    for (std::uint32_t i = 0; i < devices_.size(); ++i) by_lid_[devices_[i].lid] = i;
    max_lid_ = lid - 1;
}

std::optional<std::uint32_t> Topology::device_by_lid(std::uint32_t lid) const {
    if (lid == 0 || lid >= by_lid_.size() || by_lid_[lid] == UINT32_MAX) return std::nullopt;
    return by_lid_[lid];
}

} // namespace evb::netsim
