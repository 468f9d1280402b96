// What the units are configured with: the event builder's and the micro-benchmarks' parameters,
// and how long a run lasts and what it counts. Defaults live here; config_options.cpp declares each
// field's flag once and derives the defaults that depend on others; validate() refuses what cannot
// run. The rest of a run's options (the transport, its grace and heartbeat, placement, launching,
// output) are the executor's (src/exec/run_config.hpp), options of one driver live with that
// driver (drivers/<name>/).
#pragma once
#include "core/config_error.hpp"
#include "core/memory_pool.hpp"
#include "scheduling/schedule.hpp"
#include "scheduling/traffic_pattern.hpp"
#include "core/time.hpp"
#include "scheduling/time_windows.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace evb {

enum class Protocol { pull, push, pull_no_em };
enum class EmPlacement { rank0, own_rank };
// folded: node i has RU i and BU i; split: R nodes only read out, B nodes only build (paper 003's
// single-way mode, fig. 3).
enum class NodeLayout { folded, split };
enum class Verify { header, full };
enum class SizeDistribution { fixed, uniform, normal, lognormal };
// What a run does when a node is lost: end (as MPI must), or go on without it (failover.md).
enum class OnFailure { stop, continue_run };
// Reactor threads of a process: one drives all its units, or one per unit, each with its own
// transport endpoint (ppn 1 with the parallelism of ppn 2, without a second process).
enum class UnitThreads { one, per_unit };
struct UnitConfig {
    Benchmark benchmark = Benchmark::event_building;
    // Micro-benchmarks: each message is one fragment (fragment_size, message mix and size
    // distribution apply), `events` counts messages per sender.
    std::uint32_t shift = 1; // one-to-one: node i sends to (i + shift) mod N
    std::uint32_t in_flight = 4; // messages in flight per sender (and slots per sender at each receiver)
    Picoseconds phase_time = Picoseconds(100'000'000'000); // shift-scan: each shift this long (100 ms)
    std::uint64_t phase_messages = 0; // shift-scan: or this many messages per sender per shift
    Protocol protocol = Protocol::pull;
    Scheduling scheduling = Scheduling::barrel_shift;
    BarrelStart barrel_start = BarrelStart::own;
    // a2a: phase p lasts send_window + idle_window; RU i sends to BU (i + p) mod B only inside
    // the send window, and only what finishes in it at line_gbps.
    Picoseconds send_window{}, idle_window{};
    double line_gbps = 0; // the NIC's rate; the simulator sets b_eff (eq. 2.14)
    std::uint32_t nodes = 0; // 0: derived from the number of processes (4 on local)
    std::uint32_t ppn = 1; // processes per node: 1 (RU+BU) or 2 (RU, BU)
    NodeLayout layout = NodeLayout::folded;
    std::uint32_t readout_nodes = 0; // split: R
    std::uint32_t builder_nodes = 0; // split: B (then nodes = R + B)
    EmPlacement em = EmPlacement::rank0;
    std::uint32_t credits = 2;
    std::uint32_t parallel = 1;
    std::uint64_t fragment_size = 1 << 20; // bytes, including the 32 B fragment header
    // The message mix of paper 003 sec. 3.3: each fragment's data leaves as data_segments writes,
    // followed by meta_segments metadata writes of meta_size bytes each (message_mix.hpp).
    std::uint32_t data_segments = 1;
    std::uint64_t meta_size = 0;
    std::uint32_t meta_segments = 0;
    SizeDistribution size_distribution = SizeDistribution::fixed;
    double size_spread = 0.25; // uniform: +-spread*size; normal/lognormal: sigma/size
    std::vector<double> ru_scale; // per-RU factor on the fragment size; empty = all 1
    std::uint64_t events = 0; // 0: unlimited, stop on duration
    Picoseconds duration = Picoseconds::from_seconds(5);
    // Bytes, events and latencies count from this time of the run's clock on (the start-up left
    // out). command_line.cpp sets the real transports' default: a tenth of a timed run.
    Picoseconds warmup{};
    Verify verify = Verify::header;
    std::uint64_t seed = 1;
    std::uint32_t safety_margin = 2; // m of thesis eq. 3.1
    std::uint64_t memory = 0; // per-unit buffer budget in bytes; 0 = exactly eq. 3.1
    OnFailure on_failure = OnFailure::stop;
    // per_unit: each unit its own reactor thread and transport endpoint (declared with the placement,
    // src/exec/run_config.cpp; the units' layout gives each unit its endpoint).
    UnitThreads threads = UnitThreads::one;
    // Bytes of each fragment kept in memory (0: all of it). The simulated transport sets 64: the
    // header and stamp travel through memory, the rest of a fragment exists on the simulated wire
    // only, so 512 simulated nodes fit in one process.
    std::uint64_t fragment_memory = 0;

    // Maximum bytes one fragment's data can reach after distribution and scale factors.
    std::uint64_t max_fragment_size() const;
    // Metadata bytes that travel with every fragment.
    std::uint64_t meta_bytes() const { return std::uint64_t{meta_segments} * meta_size; }
    // B = m N c f (thesis eq. 3.1) with f the largest fragment, its metadata included.
    std::uint64_t required_memory() const;
    // The largest fragment with its metadata, each part 64 B aligned: what eq. 3.1 budgets per
    // fragment.
    std::uint64_t wire_fragment_stride() const { return align64(max_fragment_size()) + meta_segments * align64(meta_size); }
    // Bytes reserved per fragment in RU buffers and BU slots (less than the wire stride only
    // with fragment_memory, where each segment keeps at most that many bytes in memory).
    std::uint64_t fragment_stride() const { return data_area() + meta_segments * meta_piece_memory(); }
    // Memory of the fragment's data and of one metadata segment (message_mix.hpp places them).
    std::uint64_t data_area() const;
    std::uint64_t meta_piece_memory() const;
    std::uint64_t effective_memory() const { return memory ? memory : required_memory(); }
    double ru_scale_of(std::uint32_t ru) const { return ru_scale.empty() ? 1.0 : ru_scale.at(ru); }
    // RUs and BUs: N each when folded, R and B when split.
    std::uint32_t ru_count() const { return layout == NodeLayout::split ? readout_nodes : nodes; }
    std::uint32_t bu_count() const { return layout == NodeLayout::split ? builder_nodes : nodes; }
    // RU `ru`'s fragments for BU `bu` stay inside one node (folded: node i holds RU i and BU i).
    bool same_node(std::uint32_t ru, std::uint32_t bu) const { return layout == NodeLayout::folded && ru == bu; }
    // Eq. 3.1 on each side: an RU's buffer holds m c fragments for every BU (m B c f), a BU's
    // slots m c events of R fragments (m R c f); with --memory, that budget on each side.
    std::uint64_t ru_buffer_fragments() const;
    std::uint64_t bu_slots() const;
    bool survives_failures() const { return on_failure == OnFailure::continue_run; }
    bool is_micro_benchmark() const { return benchmark != Benchmark::event_building; }
    // Slots a micro-benchmark's receiver keeps for each sender: twice what it has in flight, so
    // that grants queued behind data towards the same peer (a shift of N/2 pairs nodes both
    // ways) do not starve it.
    std::uint32_t receive_slots() const { return 2 * in_flight; }
    // An EM runs only in event building with PULL or PUSH.
    bool has_manager() const { return !is_micro_benchmark() && protocol != Protocol::pull_no_em; }
    // When the run stops by itself at the latest: its duration, a shift scan's phases, or 0
    // when it stops on a count.
    Picoseconds planned_time() const;
    // a2a: a fragment's (and its metadata's) time on the wire at line_gbps, and what thesis eq.
    // 3.2 and 3.4 give for the windows: the rate per RU and the buffer per unit.
    Picoseconds a2a_message_time() const;
    // a2a: the windows of --send-window and --idle-window for fragments at --line-rate.
    TimeWindows a2a_windows() const { return {send_window, idle_window, a2a_message_time()}; }
    double a2a_rate_gbps() const;
    // Fragments one RU sends its phase's BU in a send window, at --line-rate.
    std::uint64_t a2a_fragments_per_window() const;
    // The share of a window the BU's credits can fill. In a window only this RU sends to the
    // phase's BU, which holds at most --credits unbuilt events: each may wait for this RU's
    // fragment, and each it completes frees a credit for one more event, whose other fragments
    // come in later phases. So at most 2 c fragments per window (1: the credits are enough).
    double a2a_window_fill_bound() const;
    // The share of a send window its whole fragments take at --line-rate: what is left of a
    // window after the last fragment that fits stays idle.
    double a2a_window_fill() const;
    std::uint64_t a2a_buffer_bytes() const;
    static std::uint64_t align64(std::uint64_t bytes) { return (bytes + 63) & ~std::uint64_t{63}; }
};

// Throws ConfigError. Call after nodes is known.
void validate(const UnitConfig& config);

std::string to_string(Protocol);
std::string to_string(Scheduling);
std::string to_string(EmPlacement);
std::string to_string(NodeLayout);
std::string to_string(Verify);
std::string to_string(SizeDistribution);
std::string to_string(Benchmark);
std::string to_string(BarrelStart);
std::string to_string(OnFailure);

// Values derived from the options that results carry next to them (memory_per_unit).
nlohmann::json derived_json(const UnitConfig& config);

constexpr std::uint32_t fragment_header_size = 32;
constexpr std::uint32_t min_fragment_size = 64;
constexpr std::uint64_t max_fragment_limit = 1ull << 30; // 1 GiB: anything larger is absurd
constexpr std::uint32_t max_credits = 4096; // slot index must fit the 12-bit imm field
constexpr std::uint32_t max_nodes = 1u << 15; // source index must fit the 15-bit imm field
constexpr std::uint32_t max_pieces = 32;
constexpr std::uint32_t max_in_flight = 32; // a receiver's 2 w slots per sender: one 64-bit mask

} // namespace evb
