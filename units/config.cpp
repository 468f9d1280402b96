#include "units/config.hpp"

#include "core/quantity.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace evb {

std::uint64_t UnitConfig::max_fragment_size() const {
    double scale = ru_scale.empty() ? 1.0 : *std::max_element(ru_scale.begin(), ru_scale.end());
    double spread = 0;
    switch (size_distribution) {
    case SizeDistribution::fixed: spread = 0; break;
    case SizeDistribution::uniform: spread = size_spread; break;
    case SizeDistribution::normal: spread = 4 * size_spread; break; // clipped at 4 sigma
    case SizeDistribution::lognormal: spread = std::exp(4 * size_spread) - 1; break; // clipped at 4 sigma
    }
    auto bytes = static_cast<std::uint64_t>(std::ceil(static_cast<double>(fragment_size) * scale * (1 + spread)));
    return (bytes + 7) & ~std::uint64_t{7}; // sizes are whole 8-byte words
}

std::uint64_t UnitConfig::required_memory() const {
    return std::uint64_t{safety_margin} * std::max(ru_count(), bu_count()) * credits * (max_fragment_size() + meta_bytes());
}

std::uint64_t UnitConfig::ru_buffer_fragments() const {
    return memory ? memory / wire_fragment_stride() : std::uint64_t{safety_margin} * bu_count() * credits;
}

std::uint64_t UnitConfig::bu_slots() const {
    return memory ? memory / (wire_fragment_stride() * ru_count()) : std::uint64_t{safety_margin} * credits;
}

Picoseconds UnitConfig::planned_time() const {
    if (benchmark == Benchmark::shift_scan) return phase_messages ? Picoseconds(0) : phase_time * nodes;
    return duration;
}

Picoseconds UnitConfig::a2a_message_time() const {
    double bytes = static_cast<double>(max_fragment_size() + meta_bytes());
    return line_gbps > 0 ? Picoseconds(static_cast<std::int64_t>(std::ceil(bytes * 8 / line_gbps * 1e3))) : Picoseconds(0);
}

double UnitConfig::a2a_rate_gbps() const { return a2a_windows().rate(line_gbps); }

std::uint64_t UnitConfig::a2a_fragments_per_window() const { return a2a_windows().per_window(); }

double UnitConfig::a2a_window_fill_bound() const {
    const std::uint64_t per_window = a2a_fragments_per_window(), fed = 2 * std::uint64_t{credits};
    return per_window > fed ? static_cast<double>(fed) / static_cast<double>(per_window) : 1.0;
}

double UnitConfig::a2a_window_fill() const { return a2a_windows().fill(); }

std::uint64_t UnitConfig::a2a_buffer_bytes() const {
    return static_cast<std::uint64_t>(safety_margin * nodes * line_gbps * 1e9 / 8 * send_window.seconds()); // eq. 3.4
}

std::uint64_t UnitConfig::data_area() const {
    if (!fragment_memory) return align64(max_fragment_size());
    // Headers only: each data segment keeps its first bytes, at a fixed place.
    std::uint64_t segment = (max_fragment_size() + data_segments - 1) / data_segments;
    return data_segments * std::min(align64(segment), align64(fragment_memory));
}

std::uint64_t UnitConfig::meta_piece_memory() const {
    return fragment_memory ? std::min(align64(meta_size), align64(fragment_memory)) : align64(meta_size);
}

namespace {

[[noreturn]] void fail(const std::string& message) { throw ConfigError(message); }

// Nodes, layout, processes per node, credits, parallel sends, the fragment size.
void check_nodes_and_units(const UnitConfig& c) {
    if (c.layout == NodeLayout::split) {
        if (c.readout_nodes < 1 || c.builder_nodes < 1)
            fail("--layout split needs --readout-nodes and --builder-nodes of at least 1 (got " + std::to_string(c.readout_nodes) +
                 " and " + std::to_string(c.builder_nodes) + ")");
        if (c.nodes != c.readout_nodes + c.builder_nodes)
            fail("--layout split: --nodes " + std::to_string(c.nodes) + " is not --readout-nodes + --builder-nodes (" +
                 std::to_string(c.readout_nodes + c.builder_nodes) + ")");
        if (c.ppn != 1) fail("--layout split places one unit per node: --ppn must be 1");
        if (c.is_micro_benchmark()) fail("--layout split is for event building; the micro-benchmarks run folded");
    } else if (c.readout_nodes || c.builder_nodes) {
        fail("--readout-nodes and --builder-nodes need --layout split");
    }
    if (c.nodes < 2) fail("--nodes must be at least 2 (got " + std::to_string(c.nodes) + ")");
    if (c.nodes > max_nodes) fail("--nodes must be at most " + std::to_string(max_nodes));
    if (c.ppn != 1 && c.ppn != 2) fail("--ppn must be 1 or 2 (got " + std::to_string(c.ppn) + ")");
    if (c.credits < 1) fail("--credits must be at least 1 (got 0)");
    if (c.credits > max_credits) fail("--credits must be at most " + std::to_string(max_credits));
    if (c.parallel < 1) fail("--parallel must be at least 1 (got 0)");
    if (c.parallel > c.ru_count())
        fail("--parallel (" + std::to_string(c.parallel) + ") must not exceed " +
             (c.layout == NodeLayout::split ? "--readout-nodes (" : "--nodes (") + std::to_string(c.ru_count()) + ")");
    if (c.fragment_size < min_fragment_size)
        fail("--fragment-size must be at least " + std::to_string(min_fragment_size) + " B (got " + std::to_string(c.fragment_size) +
             " B)");
    if (c.fragment_size > max_fragment_limit) fail("--fragment-size " + format_size(c.fragment_size) + " is absurd (limit 1GiB)");
}

// The visiting order and what it needs of the protocol.
void check_scheduling(const UnitConfig& c) {
    if (c.barrel_start == BarrelStart::staggered && c.scheduling != Scheduling::barrel_shift)
        fail("--barrel-start staggered needs --scheduling barrel");
    if (c.scheduling == Scheduling::a2a) {
        if (c.protocol != Protocol::push) fail("--scheduling a2a needs --protocol push (the RUs keep the time windows)");
        if (c.send_window <= Picoseconds(0)) fail("--scheduling a2a needs a --send-window above zero");
        if (c.idle_window < Picoseconds(0)) fail("--idle-window cannot be negative");
        if (!(c.line_gbps > 0)) fail("--scheduling a2a needs the NIC's --line-rate in Gb/s to fit fragments into the window");
        if (c.send_window < c.a2a_message_time())
            fail("a2a: a --send-window of " + std::to_string(c.send_window.count() / 1000) + " ns cannot hold one " +
                 std::to_string(c.max_fragment_size() + c.meta_bytes()) + " B fragment (" +
                 std::to_string(c.a2a_message_time().count() / 1000) + " ns at " + fmt::format("{:g}", c.line_gbps) +
                 " Gb/s): lengthen --send-window or shorten the fragments");
    }
    if (c.scheduling == Scheduling::barrel_sync) {
        if (c.protocol == Protocol::push) fail("--scheduling barrel-sync needs --protocol pull or pull-noem (the BUs keep the phases)");
        if (c.parallel != 1)
            fail("--scheduling barrel-sync takes one step per phase: --parallel must be 1 (got " + std::to_string(c.parallel) + ")");
    }
}

// Surviving a lost node.
void check_failures(const UnitConfig& c) {
    if (c.survives_failures()) {
        if (c.is_micro_benchmark()) fail("--on-failure continue is for event building; a micro-benchmark ends on a lost node");
        if (c.scheduling == Scheduling::barrel_sync)
            fail("--on-failure continue cannot keep barrel-sync's barrier across a lost BU: use --scheduling barrel or random");
    }
}

// The message mix and the fragment size distribution.
void check_message_mix(const UnitConfig& c) {
    if (c.data_segments < 1) fail("--data-segments must be at least 1 (got 0)");
    if (c.data_segments + c.meta_segments > max_pieces)
        fail("--data-segments + --meta-segments must be at most " + std::to_string(max_pieces) + " (got " +
             std::to_string(c.data_segments + c.meta_segments) + ")");
    if (c.fragment_size / c.data_segments < min_fragment_size)
        fail("--data-segments " + std::to_string(c.data_segments) + " does not fit a " + format_size(c.fragment_size) +
             " fragment: each segment must be at least " + std::to_string(min_fragment_size) + " B");
    // Every segment must hold at least one 8-byte word of the smallest fragment that can occur.
    double smallest_scale = c.ru_scale.empty() ? 1.0 : *std::min_element(c.ru_scale.begin(), c.ru_scale.end());
    double smallest = c.size_distribution == SizeDistribution::fixed
        ? std::max(double{min_fragment_size}, static_cast<double>(c.fragment_size) * smallest_scale)
        : double{min_fragment_size};
    if (c.data_segments * 8.0 > smallest)
        fail("--data-segments " + std::to_string(c.data_segments) + " does not fit the smallest fragment that can occur (" +
             std::to_string(static_cast<std::uint64_t>(smallest)) + " B: each segment needs at least 8 B)");
    if (c.meta_segments && c.meta_size < min_fragment_size)
        fail("--meta-size must be at least " + std::to_string(min_fragment_size) + " B with --meta-segments (got " +
             std::to_string(c.meta_size) + " B)");
    if (c.meta_size % 8) fail("--meta-size must be a multiple of 8 B (got " + std::to_string(c.meta_size) + " B)");
    if (c.meta_size > max_fragment_limit) fail("--meta-size " + format_size(c.meta_size) + " is absurd (limit 1GiB)");
    if (c.meta_size && !c.meta_segments) fail("--meta-size needs --meta-segments of at least 1");
    if (!(c.size_spread >= 0) || c.size_spread > 1) fail("--size-spread must be within [0, 1]");
    if (!c.ru_scale.empty()) {
        if (c.ru_scale.size() != c.ru_count())
            fail("--ru-scale has " + std::to_string(c.ru_scale.size()) + " factors for " + std::to_string(c.ru_count()) +
                 (c.layout == NodeLayout::split ? " readout nodes" : " nodes"));
        for (double s : c.ru_scale)
            if (!(s > 0) || s > 16) fail("--ru-scale factors must be within (0, 16]");
    }
    if (c.max_fragment_size() > max_fragment_limit) fail("largest fragment after --ru-scale and --size-spread exceeds 1GiB");
}

// How long the run lasts and what it counts.
void check_run_length(const UnitConfig& c) {
    if (c.events == 0 && c.duration <= Picoseconds(0) && c.benchmark != Benchmark::shift_scan)
        fail("give --events or a positive --duration");
    if (c.warmup < Picoseconds(0)) fail("--warmup cannot be negative");
    if (c.warmup > Picoseconds(0) && c.duration > Picoseconds(0) && c.warmup >= c.duration)
        fail(fmt::format("--warmup {} must end before --duration {}: nothing would be counted", format_duration(c.warmup),
                         format_duration(c.duration)));
    if (c.is_micro_benchmark()) {
        if (c.in_flight < 1 || c.in_flight > max_in_flight)
            fail("--in-flight must be within 1.." + std::to_string(max_in_flight) + " (got " + std::to_string(c.in_flight) + ")");
        if (c.benchmark == Benchmark::one_to_one && c.shift >= c.nodes)
            fail("--shift " + std::to_string(c.shift) + " must be below --nodes (" + std::to_string(c.nodes) + ")");
        if (c.benchmark == Benchmark::shift_scan && !c.phase_messages && c.phase_time <= Picoseconds(0))
            fail("--phase-time must be positive (or give --phase-messages)");
    }
}

// Eq. 3.1's buffers against --memory and this machine's RAM.
void check_buffers(const UnitConfig& c) {
    if (c.safety_margin < 2) fail("--safety-margin must be at least 2 (thesis eq. 3.1: m > 1)");
    auto required = c.required_memory();
    if (c.memory != 0 && c.memory < required)
        fail("--memory " + format_size(c.memory) + " is below the " + format_size(required) +
             " that eq. 3.1 requires (m=" + std::to_string(c.safety_margin) + " N=" + std::to_string(std::max(c.ru_count(), c.bu_count())) +
             " c=" + std::to_string(c.credits) + " f=" + format_size(c.max_fragment_size() + c.meta_bytes()) + ")");
    std::uint64_t ram = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    if (std::max(c.ru_buffer_fragments(), c.bu_slots() * c.ru_count()) * c.fragment_stride() > ram)
        fail("buffer memory per unit " + format_size(c.effective_memory()) + " exceeds this machine's " + std::to_string(ram >> 20) +
             " MiB (lower --credits, --fragment-size or --nodes)");
}

} // namespace

void validate(const UnitConfig& c) {
    check_nodes_and_units(c);
    check_scheduling(c);
    check_failures(c);
    check_message_mix(c);
    check_run_length(c);
    check_buffers(c);
}

std::string to_string(Protocol p) {
    switch (p) {
    case Protocol::pull: return "pull";
    case Protocol::push: return "push";
    case Protocol::pull_no_em: return "pull-noem";
    }
    return "?";
}
std::string to_string(Scheduling s) {
    switch (s) {
    case Scheduling::barrel_shift: return "barrel";
    case Scheduling::random: return "random";
    case Scheduling::barrel_sync: return "barrel-sync";
    case Scheduling::a2a: return "a2a";
    }
    return "?";
}
std::string to_string(BarrelStart b) { return b == BarrelStart::own ? "own" : "staggered"; }
std::string to_string(OnFailure f) { return f == OnFailure::stop ? "stop" : "continue"; }
std::string to_string(Benchmark b) {
    switch (b) {
    case Benchmark::event_building: return "eb";
    case Benchmark::one_to_one: return "one-to-one";
    case Benchmark::shift_scan: return "shift-scan";
    case Benchmark::many_to_one: return "many-to-one";
    case Benchmark::gather: return "gather";
    case Benchmark::gather_cmd: return "gather-cmd";
    case Benchmark::gather_cmd_meta: return "gather-cmd-meta";
    }
    return "?";
}
std::string to_string(NodeLayout l) { return l == NodeLayout::folded ? "folded" : "split"; }
std::string to_string(EmPlacement e) { return e == EmPlacement::rank0 ? "rank0" : "own"; }
std::string to_string(Verify v) { return v == Verify::header ? "header" : "full"; }
std::string to_string(SizeDistribution d) {
    switch (d) {
    case SizeDistribution::fixed: return "fixed";
    case SizeDistribution::uniform: return "uniform";
    case SizeDistribution::normal: return "normal";
    case SizeDistribution::lognormal: return "lognormal";
    }
    return "?";
}

nlohmann::json derived_json(const UnitConfig& c) {
    nlohmann::json j = {{"memory_per_unit", c.effective_memory()}};
    if (c.scheduling == Scheduling::a2a)
        j["a2a"] = {{"fragments_per_window", c.a2a_fragments_per_window()},
                    {"eq_3_2_gbps_per_ru", c.a2a_rate_gbps()},
                    {"window_fill_bound", c.a2a_window_fill_bound()},
                    {"window_fill", c.a2a_window_fill()},
                    {"eq_3_4_buffer_bytes", c.a2a_buffer_bytes()}};
    return j;
}

} // namespace evb
