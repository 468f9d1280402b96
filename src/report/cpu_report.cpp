#include "report/cpu_report.hpp"

#include "report/report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace evb {

CpuSummary summarise_cpu(const RunResult& r) {
    CpuSummary s;
    for (const auto& p : r.cpu) {
        s.user_s += p.cpu.user_s;
        s.system_s += p.cpu.system_s;
    }
    // The CPU over the run's start to its end (getrusage cannot be cut to a window); the bytes,
    // counted from the warm-up's end, over the warm-up's end to the run's end: each a rate over
    // the span it was counted in. Bytes that crossed the network, as the rates.
    if (r.elapsed > Picoseconds(0)) s.cores_busy = (s.user_s + s.system_s) / r.elapsed.seconds();
    if (r.elapsed > r.window_start) s.moved_gbps = gbps(r.rated_system().bytes_in, r.elapsed - r.window_start);
    if (s.moved_gbps > 0) s.cores_per_100gbps = s.cores_busy / (s.moved_gbps / 100);
    return s;
}

namespace {
std::vector<ProcessCpu> by_rank(const RunResult& r) {
    auto cpu = r.cpu;
    std::ranges::sort(cpu, {}, [](const ProcessCpu& p) { return p.rank.value_or(0); });
    return cpu;
}
} // namespace

void print_cpu(std::ostream& out, const RunResult& r) {
    if (r.cpu.empty()) return;
    CpuSummary s = summarise_cpu(r);
    fmt::print(out,
               "# cpu: user {:.2f} s + system {:.2f} s in {:.3f} s = {:.2f} cores busy; {:.2f} cores per 100 Gb/s moved ({:.2f} Gb/s into "
               "builders)\n",
               s.user_s, s.system_s, r.elapsed.seconds(), s.cores_busy, s.cores_per_100gbps, s.moved_gbps);
    if (r.cpu.size() == 1 && !r.cpu[0].rank) return; // one process: the line above is it
    std::string per_rank;
    for (const auto& p : by_rank(r)) per_rank += fmt::format("  {}: {:.2f}/{:.2f}", p.rank.value_or(0), p.cpu.user_s, p.cpu.system_s);
    fmt::print(out, "# cpu per rank (user/system s):{}\n", per_rank);
}

nlohmann::json cpu_json(const RunResult& r) {
    CpuSummary s = summarise_cpu(r);
    nlohmann::json processes = nlohmann::json::array();
    for (const auto& p : by_rank(r))
        processes.push_back(
            {{"rank", p.rank ? nlohmann::json(*p.rank) : nlohmann::json("all")}, {"user_s", p.cpu.user_s}, {"system_s", p.cpu.system_s}});
    return {{"user_s", s.user_s},
            {"system_s", s.system_s},
            {"cores_busy", s.cores_busy},
            {"moved_gbps", s.moved_gbps},
            {"cores_per_100gbps", s.cores_per_100gbps},
            {"processes", processes}};
}

} // namespace evb
