#include "report/report.hpp"

#include "report/cpu_report.hpp"
#include "report/rails_report.hpp"
#include "report/result_row.hpp"
#include "core/build_info.hpp"
#include "core/output_file.hpp"
#include "core/interrupt.hpp"
#include "core/json_file.hpp"
#include "report/phase_table.hpp"
#include "core/placement.hpp"
#include "core/printable_text.hpp"
#include "core/quantity.hpp"
#include "units/layout.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <numeric>

namespace evb {

namespace {
std::string message_mix(const Config& c) {
    if (c.data_segments == 1 && c.meta_segments == 0) return "";
    return fmt::format("  mix {} data + {} x {} meta writes", c.data_segments, c.meta_segments, format_size(c.meta_size));
}

// "1MiB (fixed)", "1MiB (uniform, spread 0.25)": the spread only where it applies.
std::string fragment_text(const Config& c) {
    if (c.size_distribution == SizeDistribution::fixed) return fmt::format("{} (fixed)", format_size(c.fragment_size));
    return fmt::format("{} ({}, spread {})", format_size(c.fragment_size), to_string(c.size_distribution), c.size_spread);
}

// ", counted from 0.5 s (--warmup)": where the statistics' window opens, when not at the start.
std::string warmup_text(const Config& c) {
    return c.warmup > Picoseconds(0) ? fmt::format(", counted from {:g} s (--warmup)", c.warmup.seconds()) : "";
}

// A micro-benchmark's header: what each sender does instead of the event builder's parameters.
void print_benchmark_header(std::ostream& out, const Config& c, std::uint32_t ranks, const std::string& launcher) {
    std::string what = to_string(c.benchmark);
    if (c.benchmark == Benchmark::one_to_one) what += fmt::format(" (shift {})", c.shift);
    fmt::print(out, "# evbench: benchmark {}, transport {} ({} ranks, {})\n", what, c.transport, ranks, launcher);
    fmt::print(out, "# nodes {}  ppn {}  in flight {}  message {}{}  verify {}\n", c.nodes, c.ppn, c.in_flight, fragment_text(c),
               message_mix(c), to_string(c.verify));
    std::string stop = c.benchmark == Benchmark::shift_scan
        ? (c.phase_messages ? fmt::format("{} shifts of {} messages per sender", c.nodes, c.phase_messages)
                            : fmt::format("{} shifts of {:g} s", c.nodes, c.phase_time.seconds()))
        : (c.events ? std::to_string(c.events) + " messages per sender or " : "") + fmt::format("{:g} s", c.duration.seconds());
    fmt::print(out, "# stop after {}{}  machine: {}; events = messages received\n", stop, warmup_text(c), describe_topology());
}
} // namespace

void print_header(std::ostream& out, const Config& c, std::uint32_t ranks, const std::string& launcher) {
    if (c.is_micro_benchmark()) return print_benchmark_header(out, c, ranks, launcher);
    fmt::print(out, "# evbench: {} protocol, {} scheduling, transport {} ({} ranks, {})\n", to_string(c.protocol), to_string(c.scheduling),
               c.transport, ranks, launcher);
    std::string nodes = c.layout == NodeLayout::split
        ? fmt::format("{} (split: {} readout, {} builder)", c.nodes, c.readout_nodes, c.builder_nodes)
        : std::to_string(c.nodes);
    fmt::print(out, "# nodes {}  ppn {}  em {}  credits {}  parallel {}  fragment {}{}  verify {}\n", nodes, c.ppn, to_string(c.em),
               c.credits, c.parallel, fragment_text(c), message_mix(c), to_string(c.verify));
    std::string memory = c.layout == NodeLayout::split
        ? fmt::format("buffer per RU {} (eq. 3.1: m={} B c f), per BU {} (m R c f)",
                      format_size(c.ru_buffer_fragments() * c.wire_fragment_stride()), c.safety_margin,
                      format_size(c.bu_slots() * c.ru_count() * c.wire_fragment_stride()))
        : fmt::format("buffer per unit {} (eq. 3.1: m={} N c f = {})", format_size(c.effective_memory()), c.safety_margin,
                      format_size(c.required_memory()));
    const std::string steady =
        c.until == Until::steady ? fmt::format("when steady (+-{:g} %, --until steady) or ", c.steady_bound_percent) : "";
    fmt::print(out, "# stop {}after {}{}{}  {}  machine: {}\n", steady, c.events ? std::to_string(c.events) + " events or " : "",
               fmt::format("{:g} s", c.duration.seconds()), warmup_text(c), memory, describe_topology());
    if (c.scheduling == Scheduling::a2a) {
        fmt::print(out,
                   "# a2a: send window {:g} us, idle window {:g} us, {} fragments per window at {:.2f} Gb/s; eq. 3.2: {:.2f} Gb/s per RU; "
                   "eq. 3.4: buffer m N b T_send = {}\n",
                   c.send_window.microseconds(), c.idle_window.microseconds(), c.a2a_fragments_per_window(), c.line_gbps, c.a2a_rate_gbps(),
                   format_size(c.a2a_buffer_bytes()));
        const TimeWindows windows = c.a2a_windows();
        if (windows.fill() < 0.99) // a window a hair short of n + 1 fragments loses one
            fmt::print(out,
                       "# a2a: the {} fragments of a window fill {:.2f} of it (one takes {:.3f} us at --line-rate, its headers "
                       "included): at most {:.2f} of eq. 3.2; --send-window {}ns holds {}\n",
                       windows.per_window(), windows.fill(), c.a2a_message_time().microseconds(), windows.fill(),
                       windows.send_window_holding(windows.per_window() + 1).count() / 1000, windows.per_window() + 1);
        if (c.a2a_window_fill_bound() < 1)
            fmt::print(out,
                       "# a2a: {} credits per builder feed at most {} of the {} fragments of a window (each credit's event, and the "
                       "one its completion lets in): at most {:.2f} of eq. 3.2; --credits {} fills it\n",
                       c.credits, 2 * std::uint64_t{c.credits}, c.a2a_fragments_per_window(), c.a2a_window_fill_bound(),
                       (c.a2a_fragments_per_window() + 1) / 2);
    }
}

ProgressLine ProgressPrinter::next(Picoseconds now, const ProgressCounts& c) {
    // Counts since the start only grow; a difference that would not is none, never 2^64 less.
    auto moved = [](std::uint64_t now_count, std::uint64_t then) { return now_count >= then ? now_count - then : 0; };
    ProgressLine l;
    l.at = now;
    l.events = c.events;
    l.in_flight = c.in_flight;
    const Picoseconds dt = now - last_time_;
    const double per_bu = builders_ ? 1.0 / builders_ : 0, per_ru = readouts_ ? 1.0 / readouts_ : 0;
    if (dt > Picoseconds(0)) {
        l.rate_hz = static_cast<double>(moved(c.events, last_.events)) / dt.seconds();
        l.in_gbps = gbps(moved(c.bytes_in, last_.bytes_in), dt) * per_bu;
        l.out_gbps = gbps(moved(c.bytes_out, last_.bytes_out), dt) * per_ru;
    }
    if (now <= count_from_)
        l.mark = "  (warm-up: not counted)";
    else if (last_time_ < count_from_)
        l.mark = fmt::format("  (warm-up until {:g} s: partly not counted)", count_from_.seconds());
    if (c.events == 0) l.mark += "  (start-up: no event built yet)";
    last_time_ = now;
    last_ = c;
    return l;
}

void ProgressPrinter::line(std::ostream& out, Picoseconds now, const ProgressCounts& since_start) {
    const ProgressLine l = next(now, since_start);
    fmt::print(out, "[{:7.{}f} s] events {:>10}  rate {:9.1f} Hz  in {:7.2f} Gb/s/node  out {:7.2f} Gb/s/node  in flight {}{}\n",
               l.at.seconds(), decimals_, l.events, l.rate_hz, l.in_gbps, l.out_gbps, l.in_flight, l.mark);
    out.flush();
}

namespace {
// A latency of no event is unknown, not zero.
std::string latency_cell(const NodeStats& s, double us) { return s.events_built ? fmt::format("{:.1f}", us) : "-"; }

// `s`: rated (bytes that crossed the network); `built_in`: every fragment byte the BU received,
// its own node's included. in_scale, out_scale: 1, or 1 / (BUs) and 1 / (RUs) for the average
// row. Events and built bytes count over `window`, network bytes over `bytes` (the same span
// except in simulated runs).
void table_row(std::ostream& out, const std::string& label, const NodeStats& s, std::uint64_t built_in, Picoseconds window,
               Picoseconds bytes, double in_scale, double out_scale) {
    double seconds = window.seconds();
    fmt::print(out, "{:>6} {:>10} {:>11.1f} {:>9.2f} {:>9.2f} {:>10.2f} {:>10} {:>10} {:>10} {:>10} {:>7}\n", label, s.events_built,
               seconds > 0 ? static_cast<double>(s.events_built) / seconds : 0.0, gbps(s.bytes_in, bytes) * in_scale,
               gbps(s.bytes_out, bytes) * out_scale, gbps(built_in, window) * in_scale, latency_cell(s, s.latency.mean_us()),
               latency_cell(s, s.latency.percentile_us(50)), latency_cell(s, s.latency.percentile_us(99)),
               latency_cell(s, s.latency.max_us()), s.errors.total());
}
} // namespace

std::vector<std::size_t> table_rows(const Config& c, const RunResult& r) {
    std::vector<std::size_t> all(r.nodes.size());
    std::iota(all.begin(), all.end(), std::size_t{0});
    if (c.rows == TableRows::all || r.nodes.size() <= table_rows_in_full) return all;
    // The slowest, the median and the fastest of a group, by what its nodes move (the same window
    // for all: bytes order them as Gb/s do).
    std::vector<std::size_t> shown;
    auto pick = [&](std::vector<std::size_t> group, auto bytes_of) {
        if (group.empty()) return;
        std::vector<std::uint64_t> key(r.nodes.size()); // rated() copies a node's statistics: once each, not per comparison
        for (std::size_t i : group) key[i] = bytes_of(r.rated(i));
        std::stable_sort(group.begin(), group.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
        for (std::size_t i : {group.front(), group[group.size() / 2], group.back()})
            if (std::find(shown.begin(), shown.end(), i) == shown.end()) shown.push_back(i);
    };
    if (c.layout == NodeLayout::split) { // readout nodes by what they send, builder nodes by what they receive
        const auto readout_end = all.begin() + std::min<std::size_t>(c.readout_nodes, all.size());
        pick(std::vector<std::size_t>(all.begin(), readout_end), [](const NodeStats& s) { return s.bytes_out; });
        pick(std::vector<std::size_t>(readout_end, all.end()), [](const NodeStats& s) { return s.bytes_in; });
    } else {
        pick(all, [](const NodeStats& s) { return s.bytes_in; });
    }
    return shown;
}

// The line that says a window holds the start-up, from what the run saw (under --until steady the
// verdict's lines say where it ended).
void print_start_up(std::ostream& out, const Config& c, const RunResult& r) {
    const StartUpBuilders b = start_up_builders(c, r);
    if (c.until == Until::steady || !b.any()) return;
    if (b.idle)
        fmt::print(out,
                   "# {} of {} BUs built no event in the window from {:g} s{}: its rates hold the start-up, not the steady state "
                   "(--until steady, a longer --duration or a later --warmup leaves it out)\n",
                   b.idle, c.bu_count(), r.window_start.seconds(),
                   b.first_in_window ? fmt::format(", {} built their first in it", b.first_in_window) : "");
    else
        fmt::print(out,
                   "# {} of {} BUs built their first event in the window from {:g} s: its rates hold the start-up, not the steady "
                   "state (--until steady, or a later --warmup, leaves it out)\n",
                   b.first_in_window, c.bu_count(), r.window_start.seconds());
}

void print_table(std::ostream& out, const Config& c, const RunResult& r, const std::vector<ProgressSample>& samples) {
    Picoseconds window = r.window(), bytes = r.byte_window();
    NodeStats sys = r.rated_system();
    if (!c.quiet) { // --quiet: the summary (the # lines) only
        const std::vector<std::size_t> rows = table_rows(c, r);
        if (rows.size() < r.nodes.size())
            fmt::print(out, "# {} nodes: the rows of the slowest, median and fastest{} (--rows all lists every node)\n", r.nodes.size(),
                       c.layout == NodeLayout::split ? " readout node by out_Gbps and builder node by in_Gbps" : " node by in_Gbps");
        fmt::print(out, "{:>6} {:>10} {:>11} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7}\n", "node", "events", "rate_Hz",
                   "in_Gbps", "out_Gbps", "built_Gbps", "lat_avg_us", "lat_p50_us", "lat_p99_us", "lat_max_us", "errors");
        for (std::size_t i : rows)
            table_row(out, std::to_string(r.nodes[i].node), r.rated(i), r.nodes[i].bytes_in, window, bytes, 1.0, 1.0);
        table_row(out, "avg", sys, r.system().bytes_in, window, bytes, 1.0 / c.bu_count(), 1.0 / c.ru_count());
    }
    if (r.interrupted && r.cut)
        fmt::print(out, "# interrupted by {} at {:.6f} s simulated: the run was cut there, as at its duration\n",
                   signal_name(r.interrupted), r.elapsed.seconds());
    else if (r.interrupted)
        fmt::print(out, "# interrupted by {}: no event was begun after it and every one under way was built by {:.3f} s\n",
                   signal_name(r.interrupted), r.elapsed.seconds());
    if (r.window_start < c.warmup)
        fmt::print(out, "# the run ended within its warm-up ({:g} s): its counts are from the start\n", c.warmup.seconds());
    print_start_up(out, c, r);
    print_cpu(out, r); // before the system line: scripts take that one with tail -1
    print_rails(out, r);
    fmt::print(out, "# system: {} events built in {:.3f} s, {:.2f} Gb/s aggregate, {:.2f} Gb/s per {}; errors: {}\n", sys.events_built,
               window.seconds(), gbps(sys.bytes_in, bytes), gbps(sys.bytes_in, bytes) / c.bu_count(),
               c.layout == NodeLayout::split ? "builder node" : "node", sys.errors.describe());
    print_phase_table(out, phase_rows(r));
    print_failures(out, c, r, samples);
    if (r.failure) fmt::print(out, "# run failed: {}\n", *r.failure);
    out.flush();
}

void ConsoleReport::started(std::uint32_t ranks, const std::string& where, const std::vector<std::string>& details) {
    if (config_.quiet) return;
    print_header(out_, config_, ranks, where);
    for (const auto& line : details) out_ << line << "\n";
    out_.flush();
}

void ConsoleReport::progress(Picoseconds now, const ProgressCounts& since_start) {
    if (now >= config_.warmup) samples_.push_back({now, since_start.events});
    if (!config_.quiet) progress_.line(out_, now, since_start);
}

int report_outcome(std::ostream& out, std::ostream& err, const Config& config, const nlohmann::json& config_echo,
                   const nlohmann::json& invocation, const RunOutcome& outcome, const std::vector<ProgressSample>& samples) {
    if (!outcome.result) {
        if (outcome.rank_failure)
            err << fmt::format("evbench[rank {}]: error: {}\n", outcome.rank, printable_text(*outcome.rank_failure, error_line_limit));
        return outcome.exit_code();
    }
    const RunResult& r = *outcome.result;
    out << outcome.extra_text;
    print_table(out, config, r, samples);
    if (!config.json_file.empty() || config.format != ReportFormat::table) {
        auto doc = result_json(config_echo, invocation, config, r, samples);
        for (const auto& [key, value] : outcome.extra_results.items()) doc["results"][key] = value;
        if (!config.json_file.empty()) write_json_file(config.json_file, doc);
        if (config.format != ReportFormat::table) { // standard output was kept for it (main.cpp)
            const ResultRow row = result_row(doc, build_info_json().value("commit", ""));
            out.flush();
            write_output_file(stdout_file, "--format", config.format == ReportFormat::csv ? csv_text(row) : key_value_line(row));
        }
    }
    if (r.exit_code() == 3)
        err << "evbench: the run survived lost nodes but lost data: " << r.system().fragments_lost
            << " fragments of lost RUs (exit code 3)\n";
    else if (r.interrupted && r.exit_code() == interrupted_exit_code(r.interrupted))
        err << "evbench: interrupted by " << signal_name(r.interrupted) << ": the report covers the run until then (exit code "
            << r.exit_code() << ")\n";
    else if (r.exit_code() != 0)
        err << "evbench: error: "
            << printable_text(r.failure ? *r.failure : "data errors: " + r.system().errors.describe(), error_line_limit) << "\n";
    return r.exit_code();
}

nlohmann::json result_json(const nlohmann::json& config_echo, const nlohmann::json& invocation, const Config& c, const RunResult& r,
                           const std::vector<ProgressSample>& samples) {
    Picoseconds window = r.window(), bytes = r.byte_window();
    NodeStats sys = r.rated_system();
    auto summary = [&](const NodeStats& s, std::uint64_t built_in, double scale) {
        return nlohmann::json{{"events_built", s.events_built},
                              {"event_rate_hz", window.seconds() > 0 ? static_cast<double>(s.events_built) / window.seconds() : 0.0},
                              {"in_gbps", gbps(s.bytes_in, bytes) * scale},
                              {"out_gbps", gbps(s.bytes_out, bytes) * scale},
                              {"built_gbps", gbps(built_in, window) * scale},
                              {"latency_us", // null: no event built, so no latency
                               s.events_built ? nlohmann::json{{"avg", s.latency.mean_us()},
                                                               {"p50", s.latency.percentile_us(50)},
                                                               {"p99", s.latency.percentile_us(99)},
                                                               {"max", s.latency.max_us()}}
                                              : nlohmann::json(nullptr)},
                              {"errors", s.errors.total()},
                              {"peak_ru_bytes", s.peak_ru_bytes},
                              {"peak_bu_bytes", s.peak_bu_bytes}};
    };
    nlohmann::json nodes = nlohmann::json::array();
    auto phases = phase_rows(r);
    for (std::size_t i = 0; i < r.nodes.size(); ++i) {
        const NodeStats& n = r.nodes[i];
        auto j = summary(r.rated(i), n.bytes_in, 1.0);
        j["node"] = n.node;
        j["raw"] = n.to_json(); // the units' own counts (bytes of whole fragments, also in simulated runs)
        nodes.push_back(j);
    }
    const std::uint64_t built_in = r.system().bytes_in;
    auto system = summary(sys, built_in, 1.0);
    system["per_node_in_gbps"] = gbps(sys.bytes_in, bytes) / c.bu_count(); // per BU
    system["per_node_built_gbps"] = gbps(built_in, window) / c.bu_count();
    system["per_node_out_gbps"] = gbps(sys.bytes_out, bytes) / c.ru_count(); // per RU
    system["events_assigned"] = sys.events_assigned;
    const StartUpBuilders start_up = start_up_builders(c, r); // a start-up figure while either is above 0
    system["idle_builders"] = start_up.idle;
    system["first_events_in_window"] = start_up.first_in_window;
    system["error_kinds"] = sys.to_json()["errors"];
    nlohmann::json doc = {{"schema", result_schema_version},
                          {"config", config_echo},
                          {"invocation", invocation},
                          {"results",
                           {{"window_s", window.seconds()},
                            {"bytes_window_s", bytes.seconds()},
                            {"counted_from_s", r.window_start.seconds()}, // --warmup: nothing before counts
                            {"elapsed_s", r.elapsed.seconds()},
                            {"wall_s", r.wall_seconds},
                            {"ok", r.exit_code() == 0},
                            {"failure", r.failure ? nlohmann::json(*r.failure) : nlohmann::json(nullptr)},
                            {"interrupted", r.interrupted ? nlohmann::json(signal_name(r.interrupted)) : nlohmann::json(nullptr)},
                            {"system", system},
                            {"nodes", nodes}}}};
    if (!phases.empty()) doc["results"]["phases"] = phase_json(phases);
    if (!sys.losses.empty()) doc["results"]["failures"] = failures_json(c, r, samples);
    if (!r.cpu.empty()) doc["results"]["cpu"] = cpu_json(r);
    if (!r.rails.empty()) doc["results"]["rails"] = rails_json(r);
    if (!r.placement.empty()) {
        doc["results"]["placement"] = nlohmann::json::array();
        for (const auto& p : r.placement) doc["results"]["placement"].push_back(p.to_json());
    }
    if (!r.origins.empty()) doc["origin"] = origins_json(r.origins);
    doc["results"]["exit_code"] = r.exit_code();
    if (r.started_unix_s > 0) doc["results"]["started_unix_s"] = r.started_unix_s;
    return doc;
}

} // namespace evb
