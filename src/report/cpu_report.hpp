// What the run cost in CPU: per process user and system seconds, the cores kept busy, and the
// cores used per 100 Gb/s moved, so "tcp needs 3.2 cores per 100 Gb/s on this node" can be read
// off a run (paper 003: TCP at 100 Gb/s needs about 8 cores).
#pragma once
#include "exec/run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb {

struct CpuSummary {
    double user_s = 0, system_s = 0;
    double cores_busy = 0; // CPU seconds per wall second of the run
    double moved_gbps = 0; // fragment bytes into the builders over the run's wall time
    double cores_per_100gbps = 0; // 0 when nothing moved
};

CpuSummary summarise_cpu(const RunResult& r);
// Two footer lines; nothing for a run without CPU figures (simulated time).
void print_cpu(std::ostream& out, const RunResult& r);
nlohmann::json cpu_json(const RunResult& r);

} // namespace evb
