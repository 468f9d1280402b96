// What a rank reports at the end of a distributed run (the control plane's stats message), as
// it writes it and as rank 0 reads it. The body comes from a peer: reading it throws
// std::invalid_argument with the reason on any body that is not one.
#pragma once
#include "core/cpu_time.hpp"
#include "units/node_stats.hpp"
#include "drivers/transport/transport.hpp"

#include <nlohmann/json.hpp>

#include <vector>

namespace evb {

struct RankStatistics {
    NodeStats stats; // its losses already on rank 0's time base
    std::vector<Transport::RailBytes> rails;
    CpuTime cpu;
};

nlohmann::json rank_statistics_body(const NodeStats& stats, double started_unix_s, const std::vector<Transport::RailBytes>& rails,
                                    CpuTime cpu);
// rank0_started_unix_s: rank 0's own start; each rank counts from its own (the barrier releases
// ranks a few ms apart), so its sightings of a loss move to rank 0's time base.
RankStatistics read_rank_statistics(const nlohmann::json& body, double rank0_started_unix_s);

} // namespace evb
