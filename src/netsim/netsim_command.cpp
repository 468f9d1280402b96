#include "netsim_command.hpp"

#include "cli_options.hpp"
#include "sim_options.hpp"
#include "subcommand.hpp"
#include "quantity.hpp"
#include "report.hpp"
#include "sim_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>


namespace evb::netsim {

int netsim_command(int argc, const char* const* argv, std::ostream& out) {
    FabricOptions fabric;
    TrafficSpec traffic;
    std::string pattern = "linear", json_file;
    Picoseconds duration = 20_us, warmup{};
    bool all_ports = false;
    CLI::App app{"evbench netsim: flit-level InfiniBand simulation of synthetic traffic on a fat tree", "evbench netsim"};
    app.allow_config_extras(CLI::config_extras_mode::error);
    app.set_config("--config", "", "read options from a TOML or INI file (keys = long flag names)");
    add_fabric_options(app, fabric);
    SimModelOptions model;
    add_sim_model_options(app, model);
    SimOptions& sim = model.sim;
    const IbParams& ib = sim.ib;
    app.add_option("--seed", sim.seed, "seed of host latencies and random traffic")->capture_default_str();
    app.add_option("--traffic", pattern, "shift, many-to-one, linear, a2a or random")->capture_default_str();
    add_quantity<std::uint64_t>(app, "--message-size", traffic.message_bytes, parse_size, "bytes per message", "1MiB");
    app.add_option("--shift", traffic.shift, "shift: host i sends to i + s")->capture_default_str();
    app.add_option("--senders", traffic.senders, "many-to-one: hosts 1..n send to host 0 (0: all)");
    app.add_option("--messages", traffic.messages, "messages per sender (0: until --duration)");
    app.add_option("--depth", traffic.depth, "messages each sender keeps posted")->capture_default_str();
    add_quantity<Picoseconds>(app, "--send-window", traffic.send_window, parse_duration, "a2a: send window per phase", "0s");
    add_quantity<Picoseconds>(app, "--idle-window", traffic.idle_window, parse_duration, "a2a: idle window per phase", "0s");
    add_quantity<Picoseconds>(app, "--duration", duration, parse_duration, "simulated time (0: until the messages are delivered)", "20us");
    add_quantity<Picoseconds>(app, "--warmup", warmup, parse_duration, "throughput is measured after this", "0s");
    app.add_flag("--ports", all_ports, "print every port, not only the 8 most stalled");
    app.add_option("--json", json_file, "write configuration and results as JSON");
    auto resolve = [&] {
        model.resolve();
        traffic.pattern = parse_traffic_pattern(pattern);
        traffic.seed = sim.seed;
        if (duration.count() > 0) traffic.stop = duration;
        if (duration.count() == 0 && traffic.messages == 0) throw std::invalid_argument("give --messages or a --duration above zero");
    };
    return run_subcommand(app, argc, argv, out, resolve, [&] {
        Fabric f = build_fabric(fabric);
        FabricSim probe(f.topology, f.routing, sim);   // validates the model before the header
        traffic.validate(probe.hosts());
        fmt::print(out, "# evbench netsim: {} hosts, {} switches, routing {}, mode {}{}, traffic {} {} messages\n",
                   f.topology.hosts().size(), f.topology.switches().size(), f.routing_name, model.mode,
                   sim.mode == SimMode::aggregated ? " x" + std::to_string(sim.aggregation) : "", pattern,
                   format_size(traffic.message_bytes));
        fmt::print(out, "# link {} Gb/s, latency {} ns, credits {} ns, buffer {} per VL x {} VLs, MTU {}, host latency {}\n",
                   ib.link_gbps, ib.link_latency.nanoseconds(), ib.credit_latency.nanoseconds(), format_size(ib.buffer_bytes), ib.vls,
                   ib.mtu, model.host_latency);
        TrafficRunResult r = run_traffic(f, sim, traffic, warmup, duration);
        print_traffic_result(out, f.topology, r, all_ports);
        if (!json_file.empty()) {
            nlohmann::json topology = fabric.topology_file.empty() ? nlohmann::json({{"k", fabric.tree.k}, {"levels", fabric.tree.levels}})
                                                                   : nlohmann::json(fabric.topology_file);
            nlohmann::json config = {{"hosts", f.topology.hosts().size()}, {"topology", topology},
                                     {"routing", f.routing_name}, {"host_order", f.host_order}, {"mode", model.mode}, {"aggregation", sim.aggregation},
                                     {"traffic", pattern}, {"message_bytes", traffic.message_bytes}, {"link_gbps", ib.link_gbps},
                                     {"buffer_bytes", ib.buffer_bytes}, {"vls", ib.vls}, {"mtu", ib.mtu},
                                     {"host_latency", model.host_latency}, {"duration_ps", duration.count()}, {"seed", sim.seed}};
            write_json_file(json_file, {{"config", config}, {"results", traffic_result_json(f.topology, r)}});
        }
        return 0;
    });
}

} // namespace evb::netsim
