// The outcome of one run, gathered at rank 0: per-node statistics, timing and failure.
#pragma once
#include "exec/run_config.hpp"
#include "core/cpu_time.hpp"
#include "core/rank_origin.hpp"
#include "exec/rank_placement.hpp"
#include "units/node_stats.hpp"
#include "drivers/transport/transport.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace evb {

// CPU a process spent from the run's start to its end.
struct ProcessCpu {
    std::optional<std::uint32_t> rank; // empty: the one process that ran every rank
    CpuTime cpu;
};

// --rails: the bytes a rank wrote through each of its NICs.
struct RankRails {
    std::uint32_t rank = 0;
    std::vector<Transport::RailBytes> nics;
};

struct RunResult {
    std::vector<NodeStats> nodes; // index = node: its RU and BU merged
    NodeStats manager; // an EM on its own rank (assignments, errors)
    Picoseconds elapsed{}; // start to end of the run (wall, or simulated)
    double wall_seconds = 0;
    double started_unix_s = 0; // wall clock at the run's start (real runs): lines up outside events, e.g. a kill
    bool cut = false; // stopped at `elapsed` with events in flight (simulated runs)
    int interrupted = 0; // the signal that ended the run before its end (SIGINT, SIGTERM), or 0
    Picoseconds window_start{}; // counts start here: the end of --warmup, or 0 when a rank ended within it
    std::size_t ranks_added_ = 0; // statistics added so far (add)
    // Simulated runs: bytes are what crossed each host's link, counted per packet as its last
    // byte arrives, so byte rates take the span those bytes crossed in (events keep window()).
    struct Span {
        Picoseconds from, to;
    };
    std::optional<Span> bytes_span;
    // Simulated runs: per node (then the EM's own host, if any), the payload its link received
    // and sent over bytes_span. Rates show these; the units' own byte counts stay in `nodes`.
    struct LinkBytes {
        std::uint64_t rx = 0, tx = 0;
    };
    std::vector<LinkBytes> link_bytes;
    std::optional<std::string> failure;
    std::vector<ProcessCpu> cpu; // real runs; empty in simulated time
    std::vector<RankPlacement> placement; // real runs: where each rank's thread and pools are
    std::vector<RankRails> rails; // --rails: per rank, bytes written per NIC
    std::vector<RankOrigin> origins; // where each rank ran (one entry when one process ran them all)

    // Sums every node (and the EM rank's counts).
    NodeStats system() const;
    // What network rates show: nodes[i] and system() with bytes that crossed the network, the
    // links' bytes where the run has them, else the units' bytes less what stayed on a node
    // (its own RU's fragments for its own BU). The units' whole counts stay in `nodes`.
    NodeStats rated(std::size_t node) const;
    NodeStats rated_system() const;
    // Measurement window for rates: start of the run to the last event built (to `elapsed` when cut).
    Picoseconds window() const;
    // Span of the byte rates: window(), or bytes_span where set.
    Picoseconds byte_window() const;
    std::uint64_t errors() const { return system().errors.total(); }
    // 0 ok (failures survived with every buildable event built), 1 a failure or any
    // verification error, 3 failures survived but data lost (fragments of a lost RU); else
    // 128 + the signal when interrupted (130 for Ctrl-C, 143 for SIGTERM).
    int exit_code() const;

    // Adds a rank's statistics into the row of its node (or the EM row).
    void add(const NodeStats& rank_stats);
};

RunResult make_result(const Config& config);

// The BUs (not lost) whose window holds the start-up, as the run saw it: those that built no
// event in it, and those whose first event lies in it (a timed run's: a run of --events counts
// every event on purpose). Zero for a micro-benchmark.
struct StartUpBuilders {
    std::uint32_t idle = 0, first_in_window = 0;
    bool any() const { return idle || first_in_window; }
};
StartUpBuilders start_up_builders(const Config& config, const RunResult& r);

// What an executor hands back. The rank that reports (rank 0, or the one process) has the
// result; another rank has only whether it failed.
struct RunOutcome {
    std::optional<RunResult> result;
    std::optional<std::string> rank_failure; // a non-reporting rank's failure ("lost connection to rank 2: ...")
    std::uint32_t rank = 0;
    nlohmann::json extra_results; // added under results (the simulator's network)
    std::string extra_text; // printed before the table (the simulator's counters)
    int exit_code() const { return result ? result->exit_code() : rank_failure ? 1 : 0; }
};

} // namespace evb
