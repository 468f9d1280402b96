#include "units/config_options.hpp"

namespace evb {
namespace {

// The benchmark and its micro-benchmark parameters.
void declare_benchmark_options(OptionSet& o, UnitConfig& c) {
    o.choice("benchmark", c.benchmark,
             {{"eb", Benchmark::event_building},
              {"one-to-one", Benchmark::one_to_one},
              {"shift-scan", Benchmark::shift_scan},
              {"many-to-one", Benchmark::many_to_one},
              {"gather", Benchmark::gather},
              {"gather-cmd", Benchmark::gather_cmd},
              {"gather-cmd-meta", Benchmark::gather_cmd_meta}},
             "event building, or a micro-benchmark (see \"Micro-benchmarks\"): each message one fragment, --events messages per sender");
    o.whole("shift", c.shift, "s", "one-to-one: node i sends to node (i + s) mod N, 0 <= s < N")
        .applies_when("--benchmark one-to-one", [&c] { return c.benchmark == Benchmark::one_to_one; });
    o.whole("in-flight", c.in_flight, "w", "micro-benchmarks: messages in flight per sender, 1..32 (receivers keep 2 w slots per sender)")
        .applies_when("a micro-benchmark (--benchmark)", [&c] { return c.is_micro_benchmark(); });
    o.duration("phase-time", c.phase_time, "shift-scan: time each shift s = 0..N-1 runs").applies_when("--benchmark shift-scan", [&c] {
        return c.benchmark == Benchmark::shift_scan;
    });
    o.whole("phase-messages", c.phase_messages, "M", "shift-scan: instead, messages each sender sends per shift")
        .shown_default("0: by time")
        .applies_when("--benchmark shift-scan", [&c] { return c.benchmark == Benchmark::shift_scan; });
}

// The event-building protocol, the visiting order, a2a's windows.
void declare_protocol_and_scheduling_options(OptionSet& o, UnitConfig& c) {
    o.choice("protocol", c.protocol, {{"pull", Protocol::pull}, {"push", Protocol::push}, {"pull-noem", Protocol::pull_no_em}},
             "event-building protocol: PULL, PUSH or PULL without EM");
    o.choice("scheduling", c.scheduling,
             {{"barrel", Scheduling::barrel_shift},
              {"random", Scheduling::random},
              {"barrel-sync", Scheduling::barrel_sync},
              {"a2a", Scheduling::a2a}},
             "order in which a BU visits RUs (PULL) or an RU visits BUs (PUSH): barrel shift, a seeded permutation per event, "
             "barrel shift with a barrier per phase (PULL, 1 parallel), or time windows (PUSH, see --send-window)");
    o.duration("send-window", c.send_window, "a2a: time per phase in which each RU sends to the phase's BU (what fits at --line-rate)")
        .applies_when("--scheduling a2a", [&c] { return c.scheduling == Scheduling::a2a; });
    o.duration("idle-window", c.idle_window, "a2a: time per phase in which no RU sends").applies_when("--scheduling a2a", [&c] {
        return c.scheduling == Scheduling::a2a;
    });
    o.real("line-rate", c.line_gbps, "Gb/s", "a2a: the NIC's data rate, to fit fragments into a send window")
        .shown_default("b_eff of the host cables with --transport sim; else required")
        .applies_when("--scheduling a2a", [&c] { return c.scheduling == Scheduling::a2a; });
    o.choice("barrel-start", c.barrel_start, {{"own", BarrelStart::own}, {"staggered", BarrelStart::staggered}},
             "barrel: every credit of a BU starts at its own RU (in step), or credit k of c at RU + k N / c");
}

// Nodes, layout, processes per node, the EM, credits and parallel sends.
void declare_nodes_and_units_options(OptionSet& o, UnitConfig& c) {
    o.whole("nodes", c.nodes, "N", "event-building nodes, each one RU and one BU, at least 2")
        .shown_default("from the process count (4 in one process)")
        .above_zero();
    o.choice("layout", c.layout, {{"folded", NodeLayout::folded}, {"split", NodeLayout::split}},
             "folded: every node reads out and builds; split: --readout-nodes R only read out, --builder-nodes B only build");
    o.whole("readout-nodes", c.readout_nodes, "R", "split: nodes that only read out (then --nodes is R + B)").shown_default("");
    o.whole("builder-nodes", c.builder_nodes, "B", "split: nodes that only build").shown_default("");
    o.whole("ppn", c.ppn, "1|2", "processes per node: 1 (RU and BU in one process) or 2");
    o.choice("em", c.em, {{"rank0", EmPlacement::rank0}, {"own", EmPlacement::own_rank}},
             "where the event manager runs: on rank 0 or on its own last rank")
        .applies_when("an event manager (event building with --protocol pull or push)", [&c] { return c.has_manager(); });
    o.whole("credits", c.credits, "c", "events each BU builds in parallel (1..4096)")
        .applies_when("event building (micro-benchmarks take --in-flight)", [&c] { return !c.is_micro_benchmark(); });
    o.whole("parallel", c.parallel, "p", "fragment requests in flight per credit (PULL) or writes per RU (PUSH), 1..N")
        .applies_when("event building (micro-benchmarks take --in-flight)", [&c] { return !c.is_micro_benchmark(); });
}

// Fragment sizes and the message mix.
void declare_fragments_options(OptionSet& o, UnitConfig& c) {
    o.size("fragment-size", c.fragment_size, "mean fragment size including the 32 B header (64 B..1 GiB)");
    o.whole("data-segments", c.data_segments, "K", "writes each fragment's data is split into, each to its own place in the BU's slot");
    o.size("meta-size", c.meta_size, "bytes of each metadata write (paper 003's mix: 10KB)").shown_default("0: none");
    o.whole("meta-segments", c.meta_segments, "M", "metadata writes per fragment, each of --meta-size, after the data");
    o.choice("size-dist", c.size_distribution,
             {{"fixed", SizeDistribution::fixed},
              {"uniform", SizeDistribution::uniform},
              {"normal", SizeDistribution::normal},
              {"lognormal", SizeDistribution::lognormal}},
             "fragment size distribution, drawn per (event, RU)")
        .echo_as("size_distribution");
    o.real("size-spread", c.size_spread, "s", "uniform: +-s of the size; normal/lognormal: sigma / size")
        .applies_when("--size-dist uniform, normal or lognormal", [&c] { return c.size_distribution != SizeDistribution::fixed; });
    o.real_list("ru-scale", c.ru_scale, "a,b,...", "per-RU size factors, one per node (nodes of 40/70/80 Gb/s: 0.5,0.875,1)")
        .shown_default("all 1");
}

// How long a run lasts, what it counts and checks, its buffers.
void declare_run_length_and_checks_options(OptionSet& o, UnitConfig& c) {
    o.whole("events", c.events, "E", "stop after E events (then no default duration)");
    o.duration("duration", c.duration, "stop assigning events after this time");
    o.duration("warmup", c.warmup,
               "bytes, events and latencies count from this time on (wall time, or simulated): rates leave the start-up out")
        .shown_default(
            "a tenth of --duration on real transports; 0 with --events, --on-failure continue, --until steady and --transport sim")
        .applies_when("a run that is not a shift scan (its phases measure their own steady part)",
                      [&c] { return c.benchmark != Benchmark::shift_scan; });
    o.choice("verify", c.verify, {{"header", Verify::header}, {"full", Verify::full}},
             "per-fragment check at the BU: the header, or the header and the payload checksum");
    o.whole("seed", c.seed, "n", "seed of random scheduling and size draws");
    o.whole("safety-margin", c.safety_margin, "m", "m of eq. 3.1, at least 2");
    o.size("memory", c.memory, "buffer budget per RU and per BU; below eq. 3.1 is an error").shown_default("m N c f").above_zero();
}

// What a lost node does to the run.
void declare_failures_options(OptionSet& o, UnitConfig& c) {
    o.choice("on-failure", c.on_failure, {{"stop", OnFailure::stop}, {"continue", OnFailure::continue_run}},
             "when a node is lost: end the run, or go on without it (see \"Failures\")");
}

} // namespace

void declare_unit_options(OptionSet& o, UnitConfig& c) {
    declare_benchmark_options(o, c);
    declare_protocol_and_scheduling_options(o, c);
    declare_nodes_and_units_options(o, c);
    declare_fragments_options(o, c);
    declare_run_length_and_checks_options(o, c);
    declare_failures_options(o, c);
}

void derive_unit_defaults(UnitConfig& c, const OptionSet& o) {
    // With only --events, the run is not cut short by the default duration.
    if (c.events && !o.given("duration")) c.duration = Picoseconds(0);
    // A timed run leaves its first tenth out of every count (connections, the first credits all at
    // once), as OSU's -x and iperf3's -O do; a run of --events counts every event, and so does a
    // run that survives failures (its report accounts for every event assigned since the start).
    // The simulator sets its own (sim_driver.cpp).
    if (!o.given("warmup") && !c.events && c.benchmark != Benchmark::shift_scan && !c.survives_failures())
        c.warmup = Picoseconds(c.duration.count() / 10);
    if (c.layout == NodeLayout::split && !o.given("nodes")) c.nodes = c.readout_nodes + c.builder_nodes;
    // gather-cmd-meta is gather-cmd plus DAQPIPE's 10 KB metadata message, unless told otherwise.
    if (c.benchmark == Benchmark::gather_cmd_meta && !o.given("meta-segments") && !o.given("meta-size")) {
        c.meta_segments = 1;
        c.meta_size = 10 * 1024;
    }
}

} // namespace evb
