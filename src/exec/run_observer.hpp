// What an executor tells while it runs: where the run is (for the header) and cumulative totals
// (for progress lines). Results are not printed by executors: they return a RunOutcome, and
// src/report prints it, the same for every executor.
#pragma once
#include "core/time.hpp"
#include "exec/progress_counts.hpp"

#include <string>
#include <vector>

namespace evb {

class RunObserver {
public:
    virtual ~RunObserver() = default;
    // Once all ranks are set up: how many ranks, under what ("in one process", "mpirun",
    // "simulated: ..."), and lines the executor adds about its machine or model.
    virtual void started(std::uint32_t ranks, const std::string& where, const std::vector<std::string>& details) = 0;
    // Every progress interval: the counts over all nodes since the run's start.
    virtual void progress(Picoseconds now, const ProgressCounts& since_start) = 0;
};

} // namespace evb
