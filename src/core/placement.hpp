// Where a rank's memory and threads go on a real node (--placement, --cpus, --numa): near the
// NIC the transport uses, as CMS pins its event builder (paper 002). Planning is separate from
// doing, and what was done is read back from the kernel (sched_getaffinity, move_pages, smaps),
// not taken on trust, so the header states facts.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace evb {

enum class PlacementMode { automatic, none, manual };
std::string to_string(PlacementMode m);

// The NIC a transport uses, as far as it knows: an RDMA device or a network interface.
struct NicName {
    std::string rdma_device;
    std::string interface;
    bool empty() const { return rdma_device.empty() && interface.empty(); }
    std::string text() const { return !rdma_device.empty() ? rdma_device : interface; }
};

struct PlacementRequest {
    PlacementMode mode = PlacementMode::automatic;
    std::vector<int> cpus; // manual: --cpus (empty: leave threads alone)
    std::optional<int> numa_node; // manual: --numa
    NicName nic; // automatic: where the transport's traffic goes
    std::uint32_t local_rank = 0; // this rank among the ranks of its host
    std::uint32_t local_ranks = 1;
};

struct PlacementPlan {
    int numa_node = -1; // pools bound here; -1: first touch
    std::optional<int> cpu; // the reactor thread pinned here
    std::string notice; // why automatic placement fell back (one line), else empty
};

// Throws std::invalid_argument naming a --cpus or --numa this machine does not have.
PlacementPlan plan_placement(const PlacementRequest& request);

// Pins the calling thread to one CPU; returns false (and leaves it unpinned) if that fails.
bool pin_current_thread(int cpu);
// The CPUs the calling thread may run on, as the kernel says.
std::vector<int> current_thread_cpus();
// Binds pages not yet touched to a NUMA node (mbind); false if it could not.
bool bind_to_numa_node(void* ptr, std::size_t len, int numa_node);
// The NUMA node each of a few pages of [ptr, ptr+len) is on now (move_pages query); empty
// without libnuma. -1 for a page not present.
std::vector<int> nodes_of_pages(const void* ptr, std::size_t len);
// One-line description of the machine's topology for the run header ("2 cores, 1 NUMA node").
std::string describe_topology();

} // namespace evb
