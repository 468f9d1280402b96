#include "netsim/commands/netsim_command.hpp"

#include "netsim/engine/sim_options.hpp"
#include "netsim/commands/subcommand.hpp"
#include "core/quantity.hpp"
#include "core/json_file.hpp"
#include "core/options.hpp"
#include "netsim/engine/sim_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <memory>

namespace evb::netsim {

namespace {

// "[   2.000000 s] delivered 1234 messages  rx 45.31 Gb/s/host  wall 0.8 s": what arrived, and
// the average receiving host's rate since the line before.
std::function<void(Picoseconds, const std::vector<SimHostStats>&)> progress_printer(std::ostream& out, std::uint32_t hosts) {
    struct Last {
        Picoseconds at{};
        std::uint64_t rx_bytes = 0;
    };
    auto last = std::make_shared<Last>();
    const auto wall_start = std::chrono::steady_clock::now();
    return [&out, hosts, last, wall_start](Picoseconds now, const std::vector<SimHostStats>& stats) {
        std::uint64_t bytes = 0, messages = 0;
        for (const auto& h : stats) {
            bytes += h.rx_payload;
            messages += h.rx_messages;
        }
        const double seconds = (now - last->at).seconds();
        const double gbps = seconds > 0 && hosts ? static_cast<double>(bytes - last->rx_bytes) * 8 / seconds / 1e9 / hosts : 0;
        fmt::print(out, "[{:10.6f} s] delivered {:>10} messages  rx {:7.2f} Gb/s/host  wall {:.1f} s\n", now.seconds(), messages, gbps,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count());
        out.flush();
        *last = {now, bytes};
    };
}

} // namespace

int netsim_command(int argc, const char* const* argv, std::ostream& out) {
    FabricOptions fabric;
    TrafficSpec traffic;
    std::string pattern = "linear", json_file;
    Picoseconds duration = 20_us, warmup{}, progress_interval{-1};
    bool all_ports = false;
    SimModelOptions model;
    SimOptions& sim = model.sim;
    const IbParams& ib = sim.ib;
    OptionSet options;
    options.begin_group("fabric", "Fabric");
    declare_fabric_options(options, fabric);
    options.begin_group("model", "InfiniBand model");
    declare_sim_model_options(options, model);
    options.begin_group("traffic", "Traffic");
    options.whole("seed", sim.seed, "n", "host latencies and random traffic");
    options.text("traffic", pattern, "PATTERN",
                 "`shift` (i -> i+s), `many-to-one` (1..n -> 0), `linear` (fixed-size linear shifter, each host at its own pace), "
                 "`a2a` (synchronised time windows), `random` (uniform)");
    options.size("message-size", traffic.message_bytes, "bytes per message");
    options.whole("shift", traffic.shift, "s", "`shift`: host i sends to i + s");
    options.whole("senders", traffic.senders, "n", "`many-to-one`: hosts 1..n send to host 0").shown_default("all");
    options.whole("messages", traffic.messages, "n", "messages per sender (0: until `--duration`)");
    options.whole("depth", traffic.depth, "n", "messages each sender keeps posted; one is done when its ACK is back");
    options.duration("send-window", traffic.send_window, "`a2a`: send window per phase; a message is posted only if it fits in the window");
    options.duration("idle-window", traffic.idle_window, "`a2a`: idle window per phase");
    options.duration("duration", duration, "simulated time (0: until every message is delivered)");
    options.duration("warmup", warmup, "throughput is measured from here to the end");
    options.duration("progress-interval", progress_interval, "simulated time between progress lines (0: none)")
        .shown_default("a tenth of --duration; 10us with --duration 0");
    options.on_off("ports", all_ports, "list every port, not only the 8 most stalled");
    options.text("json", json_file, "FILE", "configuration and results, with per-host throughput, every port and the latency histogram")
        .writes_file();
    auto resolve = [&] {
        model.resolve();
        traffic.pattern = parse_traffic_pattern(pattern);
        traffic.seed = sim.seed;
        if (duration.count() > 0) traffic.stop = duration;
        if (duration.count() == 0 && traffic.messages == 0) throw std::invalid_argument("give --messages or a --duration above zero");
        if (!options.given("progress-interval")) progress_interval = duration.count() > 0 ? Picoseconds(duration.count() / 10) : 10_us;
        if (progress_interval.count() < 0) throw std::invalid_argument("--progress-interval cannot be negative");
        traffic.validate_window(sim.ib); // before the header: a2a used to report 0 Gb/s instead
    };
    return run_subcommand(std::string("evbench netsim: ") + netsim_summary, options, argc, argv, out, resolve, [&] {
        limit_to_simulator(fabric, model.memory, {}, sim.parts);
        Fabric f = build_fabric(fabric);
        FabricSim probe(f.topology, f.routing, sim); // validates the model before the header
        traffic.validate(probe.hosts());
        fmt::print(out, "# evbench netsim: {} hosts, {} switches, routing {}, mode {}{}, traffic {} {} messages\n",
                   f.topology.hosts().size(), f.topology.switches().size(), f.routing_name, model.mode,
                   sim.mode == SimMode::aggregated ? " x" + std::to_string(sim.aggregation) : "", pattern,
                   format_size(traffic.message_bytes));
        fmt::print(out, "# links {}, latency {} ns, credits {} ns, buffer {} per VL x {} VLs, MTU {}, host latency {}\n",
                   probe.link_rates(), ib.link_latency.nanoseconds(), ib.credit_latency.nanoseconds(), format_size(ib.buffer_bytes), ib.vls,
                   ib.mtu, model.host_latency);
        TrafficRunResult r = run_traffic(f, sim, traffic, warmup, duration, {progress_interval, progress_printer(out, probe.hosts())});
        print_traffic_result(out, f.topology, r, all_ports);
        if (!json_file.empty()) {
            nlohmann::json topology = fabric.topology_file.empty() ? nlohmann::json({{"k", fabric.tree.k}, {"levels", fabric.tree.levels}})
                                                                   : nlohmann::json(fabric.topology_file);
            nlohmann::json config = {{"hosts", f.topology.hosts().size()},
                                     {"topology", topology},
                                     {"routing", f.routing_name},
                                     {"host_order", f.host_order},
                                     {"mode", model.mode},
                                     {"aggregation", sim.aggregation},
                                     {"traffic", pattern},
                                     {"message_bytes", traffic.message_bytes},
                                     {"link_gbps", ib.link_gbps},
                                     {"buffer_bytes", ib.buffer_bytes},
                                     {"vls", ib.vls},
                                     {"mtu", ib.mtu},
                                     {"host_latency", model.host_latency},
                                     {"duration_ps", duration.count()},
                                     {"seed", sim.seed}};
            write_json_file(json_file, {{"config", config}, {"results", traffic_result_json(f.topology, r)}});
        }
        return 0;
    });
}

} // namespace evb::netsim
