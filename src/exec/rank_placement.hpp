// One rank's placement on its host (--placement, --cpus, --numa, --hugepages): planned near the
// transport's NIC, done (thread pinned, pools bound, in huge pages, locked), then read back from
// the kernel for the header and JSON, so what is printed is what happened.
#pragma once
#include "exec/run_config.hpp"
#include "core/memory_pool.hpp"
#include "core/placement.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace evb {

struct RankPlacement {
    std::uint32_t rank = 0;
    std::string units; // --threads per-unit: the unit this thread drives ("RU 0"); "" for all of the rank's
    std::string nic; // the NIC placement went by ("" when none was known)
    std::vector<int> thread_cpus; // where the kernel lets the reactor thread run (sched_getaffinity)
    bool pinned = false;
    int bound_node = -1; // pools bound here (-1: first touch)
    std::vector<int> page_nodes; // nodes the pools' sampled pages are on
    std::uint64_t pool_bytes = 0, huge_bytes = 0, locked_bytes = 0; // from /proc/self/smaps
    std::string pages; // what was set up: "huge pages", "transparent huge pages", "normal pages"
    std::string notice; // why --placement auto fell back, or why pools are not locked
    std::string host; // set at rank 0 when the ranks span hosts: "h2 (10.77.0.2) at h2:40011" (not sent)

    std::string line() const; // "# rank 0: thread on cpu 3 (pinned), pools 96MiB on node 0 (bound), ..."
    nlohmann::json to_json() const;
    static RankPlacement from_json(const nlohmann::json& j);
};

// Plans this rank's placement and pins the calling thread (the rank's reactor). Throws
// ConfigError for a --cpus or --numa this machine does not have.
PlacementPlan place_this_thread(const Config& config, std::uint32_t local_rank, std::uint32_t local_ranks, const NicName& nic);
PoolMemory pool_memory(const Config& config, const PlacementPlan& plan);

// Reads back where the thread and the pools are. Throws ConfigError when a pool could not be
// locked and the transport pins memory for its NIC (RDMA registration would fail obscurely).
RankPlacement read_back_placement(std::uint32_t rank, const PlacementPlan& plan, const NicName& nic, const std::vector<MemoryPool*>& pools,
                                  bool transport_pins_memory);
RankPlacement read_back_placement(std::uint32_t rank, const PlacementPlan& plan, const NicName& nic,
                                  const std::vector<std::unique_ptr<MemoryPool>>& pools, bool transport_pins_memory);

// The header's lines: one per rank, then each distinct notice once.
std::vector<std::string> placement_lines(const std::vector<RankPlacement>& ranks);

} // namespace evb
