#include "core/placement.hpp"

#include "core/machine_info.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#ifdef EVB_HAVE_NUMA
#include <numa.h>
#include <numaif.h>
#endif
#ifdef EVB_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace evb {

std::string to_string(PlacementMode m) {
    switch (m) {
    case PlacementMode::automatic: return "auto";
    case PlacementMode::none: return "none";
    case PlacementMode::manual: return "manual";
    }
    return "?";
}

namespace {

int node_count() {
    int count = 0;
    for (const auto& n : probe_numa_nodes()) count = std::max(count, n.id + 1);
    return std::max(count, 1);
}

PlacementPlan plan_automatic(const PlacementRequest& r) {
    PlacementPlan plan;
    if (r.nic.empty()) {
        plan.notice = "placement auto: the transport names no NIC: memory and threads left to the kernel";
        return plan;
    }
    const int node = !r.nic.rdma_device.empty() ? numa_node_of_rdma_device(r.nic.rdma_device) : numa_node_of_interface(r.nic.interface);
    if (node < 0) {
        plan.notice = "placement auto: " + r.nic.text() + " reports no NUMA node (" +
            (node_count() > 1 ? "a virtual device?" : "one memory domain here") + "): memory and threads left to the kernel";
        return plan;
    }
    const auto cpus = cpus_of_numa_node(node);
    plan.numa_node = node;
    if (cpus.empty() || r.local_ranks > cpus.size()) {
        plan.notice = "placement auto: " + std::to_string(r.local_ranks) + " ranks on this host share the " + std::to_string(cpus.size()) +
            " cpus of NUMA node " + std::to_string(node) + " (near " + r.nic.text() + "): memory bound there, threads left to the kernel";
        return plan;
    }
    plan.cpu = cpus[r.local_rank % cpus.size()];
    return plan;
}

} // namespace

PlacementPlan plan_placement(const PlacementRequest& r) {
    PlacementPlan plan;
    if (r.mode == PlacementMode::none) return plan;
    if (r.mode == PlacementMode::automatic) return plan_automatic(r);
    if (r.numa_node) {
        const int nodes = node_count();
        if (*r.numa_node < 0 || *r.numa_node >= nodes || cpus_of_numa_node(*r.numa_node).empty())
            throw std::invalid_argument("--numa " + std::to_string(*r.numa_node) + ": this machine has NUMA node" +
                                        (nodes == 1 ? " 0" : "s 0-" + std::to_string(nodes - 1)) + " (evbench info lists them)");
        plan.numa_node = *r.numa_node;
    }
    if (!r.cpus.empty()) {
        const int cpu = r.cpus[r.local_rank % r.cpus.size()];
        const long cpus = sysconf(_SC_NPROCESSORS_CONF);
        if (cpu >= cpus)
            throw std::invalid_argument("--cpus: cpu " + std::to_string(cpu) + " does not exist here (cpus 0-" + std::to_string(cpus - 1) +
                                        ")");
        plan.cpu = cpu;
    }
    return plan;
}

bool bind_to_numa_node(void* ptr, std::size_t len, int numa_node) {
#ifdef EVB_HAVE_NUMA
    if (numa_node < 0 || numa_available() < 0 || numa_node > numa_max_node()) return false;
    unsigned long mask[16] = {};
    mask[numa_node / (8 * sizeof(unsigned long))] |= 1UL << (numa_node % (8 * sizeof(unsigned long)));
    return mbind(ptr, len, MPOL_BIND, mask, sizeof(mask) * 8, 0) == 0;
#else
    (void)ptr;
    (void)len;
    (void)numa_node;
    return false;
#endif
}

std::vector<int> nodes_of_pages(const void* ptr, std::size_t len) {
    std::vector<int> nodes;
#ifdef EVB_HAVE_NUMA
    if (numa_available() < 0 || len == 0) return nodes;
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const auto* base = static_cast<const char*>(ptr);
    std::vector<void*> pages{const_cast<char*>(base), const_cast<char*>(base + (len / 2) / page * page),
                             const_cast<char*>(base + (len - 1) / page * page)};
    std::vector<int> status(pages.size(), -1);
    if (numa_move_pages(0, pages.size(), pages.data(), nullptr, status.data(), 0) == 0) nodes = status;
#else
    (void)ptr;
    (void)len;
#endif
    return nodes;
}

bool pin_current_thread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

std::vector<int> current_thread_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0) return cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

std::string describe_topology() {
#ifdef EVB_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_topology_destroy(topo);
        return std::to_string(cores) + " cores, " + std::to_string(pus) + " threads, " + std::to_string(numa) + " NUMA node" +
            (numa == 1 ? "" : "s");
    }
#endif
    return std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cpus";
}

} // namespace evb
