#include "exec/rank_placement.hpp"

#include "core/json_fields.hpp"

#include "core/cpu_list.hpp"
#include "core/machine_info.hpp"
#include "core/mapping_facts.hpp"
#include "core/quantity.hpp"

#include <fmt/format.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstring>

namespace evb {

PlacementPlan place_this_thread(const Config& config, std::uint32_t local_rank, std::uint32_t local_ranks, const NicName& nic) {
    PlacementRequest request;
    request.mode = config.placement;
    request.nic = nic;
    request.local_rank = local_rank;
    request.local_ranks = local_ranks;
    if (!config.cpus.empty()) request.cpus = parse_cpu_list(config.cpus);
    if (!config.numa.empty()) request.numa_node = std::stoi(config.numa);
    PlacementPlan plan;
    try {
        plan = plan_placement(request);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(e.what());
    }
    if (plan.cpu && !pin_current_thread(*plan.cpu))
        throw ConfigError("--cpus: cannot pin to cpu " + std::to_string(*plan.cpu) +
                          " (not in this process's allowed set: taskset, cgroup?)");
    return plan;
}

PoolMemory pool_memory(const Config& config, const PlacementPlan& plan) { return {plan.numa_node, config.hugepages}; }

namespace {
std::string memlock_text() {
    rlimit limit{};
    getrlimit(RLIMIT_MEMLOCK, &limit);
    return limit.rlim_cur == RLIM_INFINITY ? "unlimited" : format_size(limit.rlim_cur);
}
} // namespace

RankPlacement read_back_placement(std::uint32_t rank, const PlacementPlan& plan, const NicName& nic,
                                  const std::vector<std::unique_ptr<MemoryPool>>& pools, bool transport_pins_memory) {
    std::vector<MemoryPool*> raw;
    for (const auto& pool : pools) raw.push_back(pool.get());
    return read_back_placement(rank, plan, nic, raw, transport_pins_memory);
}

RankPlacement read_back_placement(std::uint32_t rank, const PlacementPlan& plan, const NicName& nic, const std::vector<MemoryPool*>& pools,
                                  bool transport_pins_memory) {
    RankPlacement p;
    p.rank = rank;
    p.nic = nic.text();
    p.thread_cpus = current_thread_cpus();
    p.pinned = plan.cpu.has_value();
    p.bound_node = plan.numa_node;
    p.notice = plan.notice;
    int unlocked_errno = 0;
    for (const auto& pool : pools) {
        p.pool_bytes += pool->size();
        const MappingFacts facts = mapping_facts(pool->data());
        p.huge_bytes += std::min<std::uint64_t>(facts.huge_bytes, pool->size());
        p.locked_bytes += std::min<std::uint64_t>(facts.locked_bytes, pool->size());
        for (int n : nodes_of_pages(pool->data(), pool->size()))
            if (n >= 0 && std::ranges::find(p.page_nodes, n) == p.page_nodes.end()) p.page_nodes.push_back(n);
        if (!pool->locked()) unlocked_errno = pool->lock_errno();
        if (p.pages.empty() || pool->backing() != PageBacking::hugetlb) p.pages = to_string(pool->backing());
    }
    std::ranges::sort(p.page_nodes);
    if (unlocked_errno) {
        const std::string why = fmt::format("cannot lock the {} of buffer pools in memory ({}): RLIMIT_MEMLOCK is {}",
                                            format_size(p.pool_bytes), std::strerror(unlocked_errno), memlock_text());
        if (transport_pins_memory)
            throw ConfigError(why +
                              "; RDMA registration needs them locked: raise it (ulimit -l unlimited; LimitMEMLOCK=infinity for "
                              "slurmd or systemd; memlock in /etc/security/limits.conf)");
        if (!p.notice.empty()) p.notice += "; ";
        p.notice += why + " (pools stay unlocked; this transport does not need them locked)";
    }
    return p;
}

std::string RankPlacement::line() const {
    std::string thread = thread_cpus.size() == 1 ? fmt::format("cpu {}", thread_cpus[0]) : "cpus " + format_cpu_list(thread_cpus);
    std::string head = fmt::format("# rank {}{}{}: thread on {} ({})", rank, units.empty() ? "" : " (" + units + ")",
                                   host.empty() ? "" : " on " + host, thread, pinned ? "pinned" : "not pinned");
    if (pool_bytes == 0) return head + ", no pools" + (nic.empty() ? "" : "; NIC " + nic); // an EM on a thread of its own
    std::string nodes = page_nodes.empty() ? "unknown node" : "node " + format_cpu_list(page_nodes);
    double huge = 100.0 * static_cast<double>(huge_bytes) / static_cast<double>(pool_bytes);
    return head +
        fmt::format(", pools {} on {} ({}), {} ({:.0f}% in huge pages), {}{}", format_size(pool_bytes), nodes,
                    bound_node >= 0 ? fmt::format("bound to node {}", bound_node) : "first touch", pages, huge,
                    locked_bytes >= pool_bytes ? "locked" : fmt::format("{} locked", format_size(locked_bytes)),
                    nic.empty() ? "" : "; NIC " + nic);
}

std::vector<std::string> placement_lines(const std::vector<RankPlacement>& ranks) {
    std::vector<std::string> lines, notices;
    for (const auto& r : ranks) {
        lines.push_back(r.line());
        if (!r.notice.empty() && std::ranges::find(notices, r.notice) == notices.end()) notices.push_back(r.notice);
    }
    for (const auto& n : notices) lines.push_back("# " + n);
    return lines;
}

nlohmann::json RankPlacement::to_json() const {
    return {{"rank", rank},
            {"units", units},
            {"nic", nic},
            {"thread_cpus", format_cpu_list(thread_cpus)},
            {"pinned", pinned},
            {"bound_node", bound_node},
            {"page_nodes", page_nodes},
            {"pool_bytes", pool_bytes},
            {"huge_bytes", huge_bytes},
            {"locked_bytes", locked_bytes},
            {"pages", pages},
            {"notice", notice}};
}

RankPlacement RankPlacement::from_json(const nlohmann::json& j) {
    // From a peer: every field checked (json_fields.hpp), a NUMA node from -1 (none) to 65535.
    const auto node_number = [](const nlohmann::json& v) {
        if (!(json_is_whole(v, 65535) || (v.is_number_integer() && v.get<std::int64_t>() == -1)))
            throw std::invalid_argument("a NUMA node number is not from -1 to 65535");
        return v.get<int>();
    };
    RankPlacement p;
    p.rank = whole_field_as<std::uint32_t>(j, "rank");
    p.units = j.contains("units") ? text_field(j, "units") : "";
    p.nic = text_field(j, "nic");
    p.thread_cpus = parse_cpu_list(text_field(j, "thread_cpus"));
    const auto& pinned = json_field(j, "pinned");
    if (!pinned.is_boolean()) throw std::invalid_argument("the field 'pinned' is not true or false");
    p.pinned = pinned.get<bool>();
    p.bound_node = node_number(json_field(j, "bound_node"));
    const auto& nodes = json_field(j, "page_nodes");
    if (!nodes.is_array()) throw std::invalid_argument("the field 'page_nodes' is not an array");
    for (const auto& n : nodes) p.page_nodes.push_back(node_number(n));
    p.pool_bytes = whole_field(j, "pool_bytes");
    p.huge_bytes = whole_field(j, "huge_bytes");
    p.locked_bytes = whole_field(j, "locked_bytes");
    p.pages = text_field(j, "pages");
    p.notice = text_field(j, "notice");
    return p;
}

} // namespace evb
