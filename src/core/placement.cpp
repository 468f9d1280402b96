#include "placement.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#ifdef EVB_HAVE_NUMA
#include <numa.h>
#endif
#ifdef EVB_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace evb {

void bind_to_numa_node(void* ptr, std::size_t len, int numa_node) {
#ifdef EVB_HAVE_NUMA
    if (numa_node >= 0 && numa_available() >= 0 && numa_node <= numa_max_node()) numa_tonode_memory(ptr, len, numa_node);
#else
    (void)ptr;
    (void)len;
    (void)numa_node;
#endif
}

bool pin_current_thread(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

std::string describe_topology() {
#ifdef EVB_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        int numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_topology_destroy(topo);
        return std::to_string(cores) + " cores, " + std::to_string(pus) + " threads, " + std::to_string(numa) +
               " NUMA node" + (numa == 1 ? "" : "s");
    }
#endif
    return std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " cpus";
}

} // namespace evb
