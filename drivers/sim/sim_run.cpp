#include "drivers/sim/sim_run.hpp"

#include "core/huge_page_heap.hpp"
#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "core/options.hpp"
#include "core/quantity.hpp"
#include "exec/steady_report.hpp"
#include "exec/steady_watch.hpp"
#include "exec/reactor.hpp"
#include "exec/run_deadline.hpp"
#include "drivers/sim/sim_network.hpp"
#include "netsim/engine/sim_report.hpp"
#include "drivers/sim/sim_transport.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

namespace evb {
namespace {

constexpr std::uint64_t progress_tag = UINT64_MAX, warmup_tag = UINT64_MAX - 1, steady_tag = UINT64_MAX - 2;
// Simulated time between two looks for an interrupt: well under a second of wall time even at
// thousands of nodes, and a negligible cost for small fabrics.
constexpr Picoseconds interrupt_slice = Picoseconds::from_seconds(100e-6);
// --until steady samples every BU this often at first (SteadyState doubles it as the run grows).
constexpr Picoseconds steady_sample = Picoseconds::from_seconds(10e-6);
// Injected failure i stops its ranks at failure_tag(i) and is detected at failure_tag(i) - 1.
constexpr std::uint64_t first_failure_tag = UINT64_MAX - 3;
constexpr std::uint64_t failure_tag(std::size_t i) { return first_failure_tag - 2 * std::uint64_t{i}; }

// Calls the nodes' entry points whenever the fabric delivers something or a timer is due, at
// the simulated time of that moment.
class SimExecutor final : public netsim::SimApp {
public:
    SimExecutor(SimNetwork& network, std::vector<std::unique_ptr<Node>>& nodes, Reactor& reactor, const Config& config, Picoseconds warmup,
                const std::vector<InjectedFailure>& failures, RunObserver& observer)
        : network_(network), nodes_(nodes), reactor_(reactor), config_(config), warmup_(warmup), failures_(failures), observer_(observer),
          armed_(nodes.size(), Picoseconds::max()), parts_(network.fabric().parts()) {}

    // --until steady: sample the BUs and stop once the rate is known.
    void watch_for_steady(const Layout& layout) { steady_.emplace(config_, layout, nodes_); }
    bool steady_reached() const { return steady_ && steady_->reached(); }
    std::optional<SteadyVerdict> steady_verdict() const { return steady_ ? std::optional(steady_->verdict()) : std::nullopt; }

    void start(netsim::FabricSim& sim) override {
        for (auto& node : nodes_) {
            node->set_now(sim.now());
            node->start();
        }
        for (std::uint32_t r = 0; r < nodes_.size(); ++r) service(sim, r);
        for (std::uint32_t p = 0; p < sim.parts(); ++p) drain(sim, p);
        // What reads or changes every rank fires on a timer of the whole fabric, between windows.
        sim.set_global_timer(config_.progress_interval, progress_tag); // printed unless --quiet; the failure report reads them too
        if (warmup_ > Picoseconds(0)) sim.set_global_timer(warmup_, warmup_tag);
        if (steady_) sim.set_global_timer(steady_->next_due(steady_sample), steady_tag);
        for (std::size_t i = 0; i < failures_.size(); ++i) sim.set_global_timer(failures_[i].at, failure_tag(i));
    }

    void delivered(netsim::FabricSim& sim, const netsim::SimMessage& m) override {
        network_.delivered(m);
        drain(sim, sim.part_of_host(m.dst));
    }

    void acknowledged(netsim::FabricSim& sim, const netsim::SimMessage& m) override {
        if (network_.acknowledged(m)) drain(sim, sim.part_of_host(m.src));
    }
    bool wants_acks() const override { return true; }

    void global_timer(netsim::FabricSim& sim, std::uint64_t tag) override {
        if (tag == progress_tag) {
            observer_.progress(sim.now(), with_fabric_bytes(reactor_.progress(), sim));
            if (!reactor_.all_finished() && !reactor_.failure()) sim.set_global_timer(sim.now() + config_.progress_interval, progress_tag);
            return;
        }
        if (tag == steady_tag) {
            if (!steady_->sample(sim.now())) sim.set_global_timer(steady_->next_due(steady_sample), steady_tag);
            return;
        }
        if (tag == warmup_tag) { // the nodes open their own window (Node::set_now); the links' counters are the fabric's
            link_baseline_ = sim.host_stats();
            return;
        }
        const std::size_t i = (first_failure_tag - tag) / 2;
        if (tag == failure_tag(i)) {
            fail(i);
            if (failures_[i].detected_at > sim.now()) {
                sim.set_global_timer(failures_[i].detected_at, failure_tag(i) - 1);
                return;
            }
        }
        detect(sim, i);
        for (std::uint32_t p = 0; p < sim.parts(); ++p) drain(sim, p);
    }

    // A rank's timer, or its host's loopback transfer finishing: on that host's part.
    void timer(netsim::FabricSim& sim, std::uint32_t host, std::uint64_t tag) override {
        const std::uint32_t part = sim.part_of_host(host);
        if (tag & SimNetwork::loopback_tag) {
            network_.loopback_done(tag);
            drain(sim, part);
            return;
        }
        auto rank = static_cast<std::uint32_t>(tag);
        armed_[rank] = Picoseconds::max();
        service(sim, rank);
        drain(sim, part);
    }

    Picoseconds last_activity() const {
        Picoseconds last{};
        for (const PartState& p : parts_) last = std::max(last, p.last_activity);
        return last;
    }
    // Per host, the link counters at the end of the warm-up (empty if it was never reached).
    const std::vector<netsim::SimHostStats>& link_baseline() const { return link_baseline_; }

private:
    // Byte rates in simulated time count what crossed the links (every host's, per packet), not
    // whole fragments at completion, which would show more than a link carries; since the start,
    // as the nodes' own counts.
    static ProgressCounts with_fabric_bytes(ProgressCounts counts, const netsim::FabricSim& sim) {
        counts.bytes_in = counts.bytes_out = 0;
        for (const auto& h : sim.host_stats()) {
            counts.bytes_in += h.rx_payload;
            counts.bytes_out += h.tx_payload;
        }
        return counts;
    }

    // The failed ranks stop where they are: what they posted is on the fabric, nothing more is.
    void fail(std::size_t i) {
        for (auto r : failures_[i].ranks) {
            nodes_[r]->halt();
            network_.halt(r);
        }
    }

    // Every survivor learns of the loss at once, as from its transport or the heartbeat.
    void detect(netsim::FabricSim& sim, std::size_t i) {
        for (std::uint32_t r = 0; r < nodes_.size(); ++r) {
            Node& node = *nodes_[r];
            if (node.halted()) continue;
            node.set_now(sim.now());
            for (auto lost : failures_[i].ranks) node.lose_rank(lost, failures_[i].how, failures_[i].at);
            service(sim, r);
        }
    }

    // The ranks of fabric part `part` with new completions (the ranks a callback on that part touched).
    void drain(netsim::FabricSim& sim, std::uint32_t part) {
        std::vector<std::uint32_t>& dirty = parts_[part].dirty;
        for (;;) {
            network_.take_dirty(part, dirty);
            if (dirty.empty()) return;
            for (auto r : dirty) service(sim, r);
        }
    }

    // One rank at the current simulated time: completions, due timers, waiting posts; then its
    // next timer goes into the engine.
    void service(netsim::FabricSim& sim, std::uint32_t rank) {
        Node& node = *nodes_[rank];
        if (node.halted()) return;
        node.set_now(sim.now());
        PartState& part = parts_[network_.part_of_rank(rank)];
        part.last_activity = std::max(part.last_activity, sim.now());
        for (;;) {
            std::size_t n = node.transport().poll(part.completions);
            for (std::size_t i = 0; i < n; ++i) node.dispatch(part.completions[i]);
            if (n < part.completions.size()) break;
        }
        node.run_due_timers();
        node.retry_pending();
        Picoseconds next = node.next_timer();
        if (next != Picoseconds::max() && next < armed_[rank]) {
            armed_[rank] = next;
            sim.set_timer(std::max(next, sim.now()), network_.host_of(rank), rank);
        }
    }

    SimNetwork& network_;
    std::vector<std::unique_ptr<Node>>& nodes_;
    Reactor& reactor_;
    const Config& config_;
    Picoseconds warmup_;
    const std::vector<InjectedFailure>& failures_;
    RunObserver& observer_;
    std::vector<Picoseconds> armed_;
    // What the callbacks on one part of the fabric use (with threads, parts run at once).
    struct PartState {
        std::vector<std::uint32_t> dirty;
        std::array<Completion, 64> completions{};
        Picoseconds last_activity{};
    };
    std::vector<PartState> parts_;
    std::vector<netsim::SimHostStats> link_baseline_;
    std::optional<SteadyWatch> steady_;
};

// Payload that crossed each of the first `hosts` hosts' links over the window, counted per
// packet (loopback transfers inside a host are not on the network and not counted).
std::vector<RunResult::LinkBytes> link_bytes(const netsim::FabricSim& sim, const std::vector<netsim::SimHostStats>& baseline,
                                             std::uint32_t hosts) {
    std::vector<RunResult::LinkBytes> out;
    for (std::size_t h = 0; h < hosts; ++h) {
        const auto& now = sim.host_stats()[h];
        out.push_back({now.rx_payload - (baseline.empty() ? 0 : baseline[h].rx_payload),
                       now.tx_payload - (baseline.empty() ? 0 : baseline[h].tx_payload)});
    }
    return out;
}

struct FabricRx {
    double avg = 0, min = 0, max = 0;
    std::vector<double> per_node;
};
// per_node: every node; avg, min and max over the nodes that build, [first_builder, nodes) (a
// split layout's readout nodes receive only commands).
FabricRx fabric_rx(const std::vector<RunResult::LinkBytes>& bytes, std::uint32_t first_builder, std::uint32_t nodes, Picoseconds window) {
    FabricRx r;
    for (std::uint32_t h = 0; h < nodes; ++h) r.per_node.push_back(gbps(bytes[h].rx, window));
    auto builders = r.per_node.begin() + first_builder;
    r.min = *std::min_element(builders, r.per_node.end());
    r.max = *std::max_element(builders, r.per_node.end());
    for (auto it = builders; it != r.per_node.end(); ++it) r.avg += *it / (nodes - first_builder);
    return r;
}

nlohmann::json network_json(const netsim::Topology& t, const netsim::FabricSim& sim, double wall_seconds, const std::string& routing) {
    const auto& pl = sim.packet_latency();
    return {{"hosts", t.hosts().size()},
            {"switches", t.switches().size()},
            {"routing", routing},
            {"ports", netsim::ports_json(t, sim.port_stats())},
            {"packet_latency",
             {{"mean_us", pl.mean_us()}, {"p50_us", pl.percentile_us(50)}, {"p99_us", pl.percentile_us(99)}, {"max_us", pl.max_us()}}},
            {"message_latency", {{"mean_us", sim.message_latency().mean_us()}, {"p99_us", sim.message_latency().percentile_us(99)}}},
            {"simulated_ps", sim.now().count()},
            {"wall_seconds", wall_seconds},
            {"sim_threads", sim.threads()},
            {"events", sim.events()},
            {"flit_hops", sim.flit_hops()}};
}

void print_network(std::ostream& out, const netsim::Topology& t, const netsim::FabricSim& sim, double wall_seconds, bool all_ports) {
    const auto& pl = sim.packet_latency();
    fmt::print(out, "# network: packet latency us avg {:.3f} p99 {:.3f} max {:.3f} ({} packets); most stalled ports:\n", pl.mean_us(),
               pl.percentile_us(99), pl.max_us(), pl.count());
    netsim::print_port_table(out, t, sim.port_stats(), sim.now(), all_ports);
    const double secs = sim.now().seconds();
    fmt::print(out, "# simulated {:.6f} s in {:.2f} s wall on {} thread{} ({:.3g} simulator events/s, {:.3g} flit-hops/s)\n", secs,
               wall_seconds, sim.threads(), sim.threads() == 1 ? "" : "s",
               wall_seconds > 0 ? static_cast<double>(sim.events()) / wall_seconds : 0,
               wall_seconds > 0 ? static_cast<double>(sim.flit_hops()) / wall_seconds : 0);
    netsim::print_window_stats(out, sim.window_stats(), sim.threads(), sim.events());
}

// A duration to suggest: whole milliseconds below 1 s, tenths of seconds above.
std::string round_up_duration(double seconds) {
    if (seconds < 1) return fmt::format("{}ms", static_cast<std::uint64_t>(std::ceil(seconds * 1e3)));
    return fmt::format("{:g}s", std::ceil(seconds * 10) / 10);
}

} // namespace

std::uint32_t fat_tree_k_for(std::uint32_t hosts) {
    std::uint32_t k = 1;
    while (2 * k * k < hosts) ++k;
    return k;
}

void SimRunOptions::declare(OptionSet& options) {
    // The fabric and the model are the very declarations of `evbench netsim`, in their groups.
    options.begin_group("fabric", "Simulated fabric (--transport sim; conflicts, fabric, netsim)");
    netsim::declare_fabric_options(options, fabric);
    options.begin_group("model", "InfiniBand model (--transport sim; netsim)");
    netsim::declare_sim_model_options(options, model);
    options.begin_group("sim", "Transport sim");
    options.on_off("ports", all_ports, "list every port in the network counters, not only the 8 most stalled");
    options
        .text_list("fail", fail, "NODE@TIME,...",
                   "stop node NODE at simulated TIME (see \"Failures\"); with --on-failure continue the run goes on")
        .shown_default("none");
    options.choice("fail-kind", fail_kind, {{"node", FailKind::node}, {"ru", FailKind::ru}, {"bu", FailKind::bu}},
                   "what --fail stops: the whole machine (found by --heartbeat), or the process of its RU or BU (connections close)");
}

void SimRunOptions::resolve(std::uint64_t seed, bool k_given, bool levels_given) {
    if (!k_given && fabric.topology_file.empty()) {
        fabric.tree.k = 0; // sized for the nodes by --radix
        if (!levels_given) fabric.tree.levels = 0;
    }
    try {
        model.resolve();
    } catch (const std::invalid_argument& e) {
        throw ConfigError(e.what());
    }
    model.sim.seed = seed;
}

namespace {

// Node i is host i; an EM with its own rank gets host N; a split layout's BU j is node R + j.
std::vector<std::uint32_t> hosts_of_ranks(const Layout& layout) {
    std::vector<std::uint32_t> host_of_rank(layout.ranks());
    for (std::uint32_t r = 0; r < layout.ranks(); ++r) host_of_rank[r] = layout.node_of(r);
    return host_of_rank;
}

// The fabric the run is simulated on: the one given (--topology, --k), or the smallest fat tree
// that holds `hosts_needed` from --radix switches; refused when it outgrows --sim-memory or has
// too few hosts.
netsim::Fabric build_run_fabric(const Config& config, const SimRunOptions& options, std::uint32_t hosts_needed) {
    netsim::FabricOptions fabric_options = options.fabric;
    if (fabric_options.topology_file.empty() && fabric_options.tree.k == 0) {
        netsim::FatTreeSpec sized = netsim::sized_fat_tree(hosts_needed, fabric_options.radix, fabric_options.tree.levels);
        sized.hosts_per_leaf = fabric_options.tree.hosts_per_leaf;
        sized.missing_hosts = fabric_options.tree.missing_hosts;
        sized.spines = fabric_options.tree.spines;
        if (fabric_options.tree.leaves) sized.leaves = fabric_options.tree.leaves;
        fabric_options.tree = sized;
    }
    // The units' state, measured (bench/sim_scale_bench.sh): about 32 MiB, 92 KiB per node and, per
    // pair of nodes, a byte per credit (the BU's received masks) and 8 more.
    netsim::limit_to_simulator(
        fabric_options, options.model.memory,
        {32ull << 20, 92ull << 10, config.credits + 8ull, "the event builder's units (measured: 92 KiB per node, credits + 8 B per pair)"},
        options.model.sim.parts);
    netsim::Fabric fabric = netsim::build_fabric(fabric_options);
    if (fabric.topology.hosts().size() < hosts_needed)
        throw ConfigError(fmt::format("the simulated fabric has {} hosts; {} nodes{} need {}", fabric.topology.hosts().size(), config.nodes,
                                      hosts_needed > config.nodes ? " and the EM's own rank" : "", hosts_needed));
    return fabric;
}

// Where the byte rates count from: the warm-up's end, or the start when the run ended within it.
Picoseconds counted_from(const Config& config, const SimExecutor& executor) {
    return executor.link_baseline().empty() ? Picoseconds(0) : config.warmup;
}

// How the engine's run went: how long it took, and whether a signal cut it.
struct EngineRun {
    bool timed = false; // cut at --duration, not run until every unit finished
    bool steady = false; // --until steady: stopped once the rate was known
    Picoseconds until{};
    int interrupted = 0;
    double wall_seconds = 0;
};

// A timed run is cut at its duration: its throughput is what crossed the fabric until then
// (draining N c events of N fragments each would take as long again, for nothing). A run of
// --events, or a shift scan, runs until it is done. In slices of simulated time, so that an
// interrupt (Ctrl-C, SIGTERM) is seen between them: the run is then cut where it is, as at its
// duration. Slicing changes no result.
EngineRun run_engine(netsim::FabricSim& sim, SimExecutor& executor, const Config& config) {
    EngineRun e;
    e.timed = config.duration > Picoseconds(0) && config.benchmark != Benchmark::shift_scan;
    e.until = e.timed ? config.duration : run_deadline(config);
    advise_heap_huge_pages();
    auto wall_start = std::chrono::steady_clock::now();
    for (;;) {
        sim.run(executor, std::min(e.until, sim.now() + interrupt_slice));
        if (sim.now() >= e.until || sim.idle()) break;
        if ((e.steady = executor.steady_reached())) break;
        if ((e.interrupted = interrupt_signal())) break;
    }
    e.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return e;
}

// The run's result from the nodes and the fabric: its failure, where it was cut, each surviving
// node's counts, the links' bytes over the window.
RunResult collect_result(const Config& config, const EngineRun& e, const netsim::FabricSim& sim, const SimExecutor& executor,
                         std::vector<std::unique_ptr<Node>>& nodes, const Reactor& reactor, std::uint32_t hosts_needed) {
    RunResult r = make_result(config);
    const bool finished = reactor.all_finished();
    if (auto f = reactor.failure()) {
        r.failure = f;
    } else if (!finished && !e.timed) {
        r.failure = sim.now() >= e.until
            ? fmt::format("simulated run did not finish within {:g} s; {} fragments in flight", e.until.seconds(),
                          reactor.totals().in_flight)
            : fmt::format("simulation stalled at {:.6f} s with nothing in flight on the fabric; {} fragments outstanding",
                          sim.now().seconds(), reactor.totals().in_flight);
    }
    r.interrupted = e.interrupted;
    r.cut = (e.timed || e.interrupted) && !finished;
    const Picoseconds cut_at = e.interrupted || e.steady ? sim.now() : config.duration;
    r.link_bytes = link_bytes(sim, executor.link_baseline(), hosts_needed);
    for (auto& node : nodes) {
        if (node->halted()) continue; // a failed rank's counts die with it, as in a real run
        node->stop(!r.cut);
        r.add(node->stats());
    }
    r.elapsed = r.cut ? cut_at : executor.last_activity();
    r.wall_seconds = e.wall_seconds;
    r.origins.push_back(this_process_origin(std::nullopt, {})); // the machine that simulated
    const Picoseconds from = counted_from(config, executor);
    // Up to the last activity, not sim.now(): a progress tick after it would stretch the window.
    const Picoseconds rx_end = r.cut ? cut_at : executor.last_activity();
    // A packet counted after the warm-up may have begun crossing up to one packet time before it.
    const auto& ib = sim.options().ib;
    const Picoseconds packet_time = from > Picoseconds(0)
        ? Picoseconds(netsim::serialisation_ps(std::uint64_t{ib.blocks(ib.wire_bytes(ib.mtu))} * ib.flit_bytes, sim.slowest_link_gbps()))
        : Picoseconds(0);
    r.bytes_span = RunResult::Span{from - packet_time, rx_end};
    return r;
}

// What the run's report adds of the fabric: the network's counters and the per-node receive
// rates as text, what the window holds of the start-up, and the same in --json's
// results.network.
void report_network(RunOutcome& outcome, const Config& config, const SimRunOptions& options, const netsim::Fabric& fabric,
                    const netsim::FabricSim& sim, const SimNetwork& network) {
    const RunResult& r = *outcome.result;
    const auto& ib = sim.options().ib;
    const bool split = config.layout == NodeLayout::split;
    FabricRx rx = fabric_rx(r.link_bytes, split ? config.readout_nodes : 0, config.nodes, r.byte_window());
    const double b_eff = netsim::effective_bandwidth_gbps(ib, config.fragment_size, sim.fastest_host_link_gbps());
    if (!config.quiet) {
        std::ostringstream text;
        print_network(text, fabric.topology, sim, r.wall_seconds, options.all_ports);
        fmt::print(text, "# fabric rx per {} {:.6f}..{:.6f} s: avg {:.2f} min {:.2f} max {:.2f} Gb/s; b_eff (eq. 2.14) {:.2f} Gb/s\n",
                   split ? "builder node" : "node", r.bytes_span->from.seconds(), r.bytes_span->to.seconds(), rx.avg, rx.min, rx.max,
                   b_eff);
        outcome.extra_text = text.str();
    }
    // Each BU fills its c slots at once, so its first event is in after c N f have crossed its link.
    const double first_event_s =
        static_cast<double>(config.credits) * config.ru_count() * static_cast<double>(config.wire_fragment_stride()) * 8 / (b_eff * 1e9);
    if (r.cut && r.system().events_built == 0)
        outcome.extra_text += fmt::format(
            "# no event was built in the {:.6f} s window: each BU fills its {} credits with {} fragments of {} at once, so "
            "its first event is in after about c N f / b_eff = {:.3g} s simulated; run --duration {} or longer for event figures, "
            "or --until steady\n",
            r.window().seconds(), config.credits, config.ru_count(), format_size(config.fragment_size), first_event_s,
            round_up_duration(2 * first_event_s + config.warmup.seconds()));
    // Until the first events are built and their credits come back, every BU walks all its credits
    // in step from the start: that traffic is the start-up's, and the links settle well below it
    // (docs/simulator.md, "Start-up and steady state"). What the run saw says whether the window
    // holds it: a BU that built nothing in it, or its first event (the report's line says which).
    const bool start_up_in_window = r.cut && start_up_builders(config, r).any();
    nlohmann::json network_results = network_json(fabric.topology, sim, r.wall_seconds, fabric.routing_name);
    network_results["first_event_estimate_s"] = first_event_s;
    network_results["start_up_in_window"] = start_up_in_window;
    network_results["fabric_rx_gbps"] = {
        {"avg", rx.avg}, {"min", rx.min}, {"max", rx.max}, {"per_node", rx.per_node}, {"window_start_s", r.bytes_span->from.seconds()}};
    network_results["effective_gbps"] = b_eff;
    network_results["bytes_through_memory"] = network.bytes_through_memory();
    outcome.extra_results["network"] = network_results;
}

} // namespace

RunOutcome run_simulated(const Config& config, const SimRunOptions& options, RunObserver& observer) {
    // The units' and the simulator's small tables, on huge pages (core/huge_page_heap.hpp): room
    // ahead now, the advice once they are set up (the run grows its heap little after that).
    grow_heap_ahead(64 << 20);
    auto units = make_run_units(config);
    const Layout& layout = units->layout();
    const std::uint32_t ranks = layout.ranks();
    std::vector<InjectedFailure> failures = parse_failures(options.fail);
    resolve_failures(failures, options.fail_kind, layout, config);
    const std::vector<std::uint32_t> host_of_rank = hosts_of_ranks(layout);
    const std::uint32_t hosts_needed = std::max(config.nodes, *std::max_element(host_of_rank.begin(), host_of_rank.end()) + 1);
    const netsim::Fabric fabric = build_run_fabric(config, options, hosts_needed);
    const netsim::SimModelOptions& model = options.model;
    netsim::FabricSim sim(fabric.topology, fabric.routing, model.sim);
    // Each write keeps at most its first fragment_memory bytes (a segment's place in memory).
    SimNetwork network(sim, host_of_rank, config.fragment_memory ? Config::align64(config.fragment_memory) : SIZE_MAX);

    auto& log = logger("evb");
    std::vector<std::unique_ptr<SimTransport>> transports;
    std::vector<std::unique_ptr<Node>> nodes;
    Reactor reactor;
    for (std::uint32_t r = 0; r < ranks; ++r) {
        transports.push_back(std::make_unique<SimTransport>(network, r));
        nodes.push_back(std::make_unique<Node>(units->units_of(r, PoolMemory{-1, HugePages::off, true}), layout, *transports.back(), log));
        nodes.back()->survive_failures(config.survives_failures());
        reactor.add(*nodes.back());
    }
    const auto& ib = model.sim.ib;
    observer.started(
        ranks,
        fmt::format("simulated: {} hosts, {} switches, routing {}, mode {}", fabric.topology.hosts().size(),
                    fabric.topology.switches().size(), fabric.routing_name, model.mode),
        {fmt::format("# links {}, latency {} ns, credits {} ns, buffer {} per VL x {} VLs, MTU {}, host latency {}; times are simulated",
                     sim.link_rates(), ib.link_latency.nanoseconds(), ib.credit_latency.nanoseconds(), format_size(ib.buffer_bytes), ib.vls,
                     ib.mtu, model.host_latency)});

    SimExecutor executor(network, nodes, reactor, config, config.warmup, failures, observer);
    if (config.until == Until::steady) executor.watch_for_steady(layout);
    const EngineRun e = run_engine(sim, executor, config);
    RunOutcome outcome;
    outcome.result = collect_result(config, e, sim, executor, nodes, reactor, hosts_needed);
    report_network(outcome, config, options, fabric, sim, network);
    if (const auto verdict = executor.steady_verdict()) {
        add_steady_report(outcome, *verdict, config);
        outcome.extra_results["network"]["start_up_in_window"] = !verdict->steady; // the verdict knows where it ended
    }
    return outcome;
}

} // namespace evb
