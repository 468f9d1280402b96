#include "netsim/engine/fabric_partition.hpp"

#include <algorithm>
#include <stdexcept>

namespace evb::netsim {

FabricPartition partition_fabric(const Topology& topology, std::uint32_t parts) {
    if (parts == 0) throw std::invalid_argument("a fabric is cut into at least one part");
    const auto& devices = topology.devices();
    constexpr std::uint32_t unassigned = UINT32_MAX;
    FabricPartition plan;
    plan.part_of_device.assign(devices.size(), unassigned);

    // Each host's leaf (none: cabled to another host, or not at all), and the leaves in the order
    // of their first host with the weight of their ports and their hosts' ports.
    std::vector<std::uint32_t> leaves;
    std::vector<std::uint64_t> leaf_weight(devices.size(), 0);
    for (const std::uint32_t h : topology.hosts()) {
        const auto& peer = devices[h].ports.at(0);
        if (!peer || devices[peer->device].kind == DeviceKind::host) continue;
        if (leaf_weight[peer->device] == 0) {
            leaves.push_back(peer->device);
            leaf_weight[peer->device] = cabled_ports(devices[peer->device]);
        }
        leaf_weight[peer->device] += 1;
    }
    plan.parts = std::max<std::uint32_t>(1, std::min<std::uint32_t>(parts, static_cast<std::uint32_t>(leaves.size())));
    plan.weight.assign(plan.parts, 0);

    // Leaves in contiguous groups of about equal weight: a leaf goes to the part its middle falls in.
    std::uint64_t total = 0;
    for (const std::uint32_t leaf : leaves) total += leaf_weight[leaf];
    std::uint64_t before = 0;
    for (const std::uint32_t leaf : leaves) {
        const std::uint64_t middle2 = 2 * before + leaf_weight[leaf]; // twice the middle, to stay in integers
        const auto part = static_cast<std::uint32_t>(std::min<std::uint64_t>(plan.parts - 1, middle2 * plan.parts / (2 * total)));
        plan.part_of_device[leaf] = part;
        plan.weight[part] += cabled_ports(devices[leaf]);
        before += leaf_weight[leaf];
    }

    // Hosts with their leaf (or part 0).
    for (const std::uint32_t h : topology.hosts()) {
        const auto& peer = devices[h].ports.at(0);
        const bool on_switch = peer && devices[peer->device].kind != DeviceKind::host;
        plan.part_of_device[h] = on_switch ? plan.part_of_device[peer->device] : 0;
        plan.weight[plan.part_of_device[h]] += cabled_ports(devices[h]);
    }

    // The other switches by level, each with the part it shares the most links with among those
    // not yet at their share of the weight (ties, or none left below it: the lightest).
    std::uint64_t all = 0;
    for (const Device& d : devices) all += cabled_ports(d);
    const std::uint64_t share = (all + plan.parts - 1) / plan.parts;
    std::vector<std::uint32_t> others;
    for (const std::uint32_t s : topology.switches())
        if (plan.part_of_device[s] == unassigned) others.push_back(s);
    std::stable_sort(others.begin(), others.end(), [&](std::uint32_t a, std::uint32_t b) { return devices[a].level < devices[b].level; });
    std::vector<std::uint64_t> shared(plan.parts);
    for (const std::uint32_t s : others) {
        std::fill(shared.begin(), shared.end(), 0);
        for (const auto& peer : devices[s].ports)
            if (peer && plan.part_of_device[peer->device] != unassigned) ++shared[plan.part_of_device[peer->device]];
        auto better = [&](std::uint32_t p, std::uint32_t than) {
            const bool room = plan.weight[p] < share, room_than = plan.weight[than] < share;
            if (room != room_than) return room;
            if (room && shared[p] != shared[than]) return shared[p] > shared[than];
            return plan.weight[p] < plan.weight[than];
        };
        std::uint32_t best = 0;
        for (std::uint32_t p = 1; p < plan.parts; ++p)
            if (better(p, best)) best = p;
        plan.part_of_device[s] = best;
        plan.weight[best] += cabled_ports(devices[s]);
    }

    // The cables between parts.
    for (std::uint32_t d = 0; d < devices.size(); ++d)
        for (const auto& peer : devices[d].ports)
            if (peer && peer->device > d && plan.part_of_device[peer->device] != plan.part_of_device[d]) ++plan.cut_links;
    return plan;
}

} // namespace evb::netsim
