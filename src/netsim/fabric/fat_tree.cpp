#include "netsim/fabric/fat_tree.hpp"

#include <algorithm>
#include <stdexcept>

namespace evb::netsim {

FatTreeSpec sized_fat_tree(std::uint32_t hosts, std::uint32_t radix, std::uint32_t levels) {
    if (radix < 4 || radix > 128 || radix % 2)
        throw std::invalid_argument("--radix " + std::to_string(radix) +
                                    ": a switch of the tree has an even number of ports within 4..128");
    if (levels != 0 && levels != 2 && levels != 3)
        throw std::invalid_argument("a fat tree has 2 or 3 levels (got " + std::to_string(levels) + ")");
    const std::uint64_t k = radix / 2, two_level = 2 * k * k, three_level = 2 * k * k * k;
    if (levels == 0) levels = hosts <= two_level ? 2 : 3;
    const std::uint64_t capacity = levels == 2 ? two_level : three_level;
    if (hosts > capacity)
        throw std::invalid_argument(std::to_string(hosts) + " hosts do not fit a " + std::to_string(levels) + "-level tree of " +
                                    std::to_string(radix) + "-port switches (at most " + std::to_string(capacity) +
                                    (levels == 2 ? " = radix^2 / 2" : " = radix^3 / 4") + "); give a larger --radix" +
                                    (levels == 2 ? " or --levels 3" : ""));
    FatTreeSpec spec;
    spec.k = static_cast<std::uint32_t>(k);
    spec.levels = levels;
    spec.leaves = static_cast<std::uint32_t>((std::max<std::uint64_t>(hosts, 2) + k - 1) / k);
    return spec;
}

Topology build_fat_tree(const FatTreeSpec& spec) {
    const std::uint32_t k = spec.k;
    if (k < 1 || k > 64) throw std::invalid_argument("fat tree arity k must be within 1..64 (got " + std::to_string(k) + ")");
    if (spec.levels != 2 && spec.levels != 3)
        throw std::invalid_argument("a fat tree has 2 or 3 levels (got " + std::to_string(spec.levels) + ")");
    const bool three = spec.levels == 3;
    const std::uint32_t max_leaves = three ? 2 * k * k : 2 * k;
    const std::uint32_t leaves = spec.leaves ? spec.leaves : max_leaves;
    if (leaves > max_leaves)
        throw std::invalid_argument("a " + std::to_string(spec.levels) + "-level k-ary fat tree has at most " +
                                    (three ? std::string("2k^2 = ") : std::string("2k = ")) + std::to_string(max_leaves) + " leaves");
    std::vector<std::uint32_t> per_leaf = spec.hosts_per_leaf;
    if (per_leaf.empty()) per_leaf.assign(leaves, k);
    if (per_leaf.size() != leaves)
        throw std::invalid_argument("hosts per leaf lists " + std::to_string(per_leaf.size()) + " leaves, the tree has " +
                                    std::to_string(leaves));
    for (auto h : per_leaf)
        if (h > k) throw std::invalid_argument("a leaf holds at most k = " + std::to_string(k) + " hosts (got " + std::to_string(h) + ")");

    // Which slots (leaf * k + port) hold a host.
    std::vector<bool> occupied(std::size_t{leaves} * k, false);
    for (std::uint32_t l = 0; l < leaves; ++l)
        for (std::uint32_t p = 0; p < per_leaf[l]; ++p) occupied[l * k + p] = true;
    for (auto m : spec.missing_hosts) {
        if (m >= occupied.size() || !occupied[m]) throw std::invalid_argument("missing host slot " + std::to_string(m) + " does not exist");
        occupied[m] = false;
    }
    std::vector<std::uint32_t> slot_of_host;
    for (std::uint32_t s = 0; s < occupied.size(); ++s)
        if (occupied[s]) slot_of_host.push_back(s);
    if (slot_of_host.size() < 2) throw std::invalid_argument("a fat tree needs at least 2 hosts");
    for (auto [a, b] : spec.swapped_hosts) {
        if (a >= slot_of_host.size() || b >= slot_of_host.size() || a == b)
            throw std::invalid_argument("cannot swap hosts " + std::to_string(a) + " and " + std::to_string(b));
        std::swap(slot_of_host[a], slot_of_host[b]);
    }

    const std::uint32_t spines = spec.spines ? spec.spines : k;
    if (spec.spines && three) throw std::invalid_argument("--spines is for 2-level trees (3 levels have k^2 cores)");
    if (spines > k || k % spines)
        throw std::invalid_argument("--spines " + std::to_string(spines) + ": each leaf's k = " + std::to_string(k) +
                                    " up-links spread evenly over the spines, so they must divide k");
    if (!three && leaves > 2 * spines)
        throw std::invalid_argument(std::to_string(spines) + " spines of " + std::to_string(2 * k) + " ports hold at most " +
                                    std::to_string(2 * spines) + " leaves with " + std::to_string(k / spines) + " cables each (got " +
                                    std::to_string(leaves) + ")");
    Topology t;
    std::vector<std::uint32_t> leaf_ids, spine_ids;
    for (std::uint32_t l = 0; l < leaves; ++l) leaf_ids.push_back(t.add_device(DeviceKind::switch_, "leaf" + std::to_string(l), 2 * k, 0));
    if (!three) {
        for (std::uint32_t s = 0; s < spines; ++s)
            spine_ids.push_back(t.add_device(DeviceKind::switch_, "spine" + std::to_string(s), 2 * k, 1));
    } else {
        // Pod p holds leaves p*k .. p*k+k-1 and aggregation switches agg(p*k + j); core j*k + m
        // links to agg j of every pod on port p.
        const std::uint32_t pods = (leaves + k - 1) / k;
        std::vector<std::uint32_t> aggs, cores;
        for (std::uint32_t a = 0; a < pods * k; ++a) aggs.push_back(t.add_device(DeviceKind::switch_, "agg" + std::to_string(a), 2 * k, 1));
        for (std::uint32_t c = 0; c < k * k; ++c) cores.push_back(t.add_device(DeviceKind::switch_, "core" + std::to_string(c), 2 * k, 2));
        for (std::uint32_t l = 0; l < leaves; ++l)
            for (std::uint32_t j = 0; j < k; ++j) t.connect({leaf_ids[l], k + j}, {aggs[(l / k) * k + j], l % k});
        for (std::uint32_t p = 0; p < pods; ++p)
            for (std::uint32_t j = 0; j < k; ++j)
                for (std::uint32_t m = 0; m < k; ++m) t.connect({aggs[p * k + j], k + m}, {cores[j * k + m], p});
    }
    for (std::uint32_t h = 0; h < slot_of_host.size(); ++h) {
        std::uint32_t host = t.add_device(DeviceKind::host, "host" + std::to_string(h), 1);
        std::uint32_t slot = slot_of_host[h];
        t.connect({host, 0}, {leaf_ids[slot / k], slot % k});
    }
    // 2 levels: leaf l's up-port k + j goes to spine j mod s, on its port l (k / s) + j / s (with
    // k spines: spine j's port l).
    if (!three)
        for (std::uint32_t l = 0; l < leaves; ++l)
            for (std::uint32_t j = 0; j < k; ++j) t.connect({leaf_ids[l], k + j}, {spine_ids[j % spines], l * (k / spines) + j / spines});
    t.assign_lids();
    return t;
}

} // namespace evb::netsim
