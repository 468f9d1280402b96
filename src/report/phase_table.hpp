// The shift scan's result (paper 003 fig. 6 and 8): for every shift s, the minimum, average and
// maximum over nodes of the rate each node received its flow at, from its phase counters.
#pragma once
#include "exec/run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace evb {

struct PhaseRow {
    std::uint32_t shift = 0;
    bool over_network = true; // shift 0 is each node to itself: it never leaves the node
    double min_gbps = 0, avg_gbps = 0, max_gbps = 0;
    std::uint64_t messages = 0; // received in this phase, all nodes
    std::uint32_t short_nodes = 0; // nodes with fewer than 2 messages in the steady part: no rate (counted as 0)
};

// Empty unless the run was a shift scan.
std::vector<PhaseRow> phase_rows(const RunResult& result);
void print_phase_table(std::ostream& out, const std::vector<PhaseRow>& rows);
nlohmann::json phase_json(const std::vector<PhaseRow>& rows);

} // namespace evb
