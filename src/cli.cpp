#include "cli.hpp"
#include "cli_options.hpp"

#include "quantity.hpp"
#include "netsim/fabric_options.hpp"
#include "netsim/sim_options.hpp"
#include "registry.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>

namespace evb {

std::optional<Config> parse_command_line(int argc, const char* const* argv, std::ostream& help_out) {
    Config c;
    CLI::App app{"evbench: event-building network benchmark (RU/BU/EM over a pluggable transport)", "evbench"};
    app.allow_config_extras(CLI::config_extras_mode::error);
    app.set_config("--config", "", "read options from a TOML or INI file (keys = long flag names)");
    app.option_defaults()->always_capture_default();

    bool duration_given = false, progress_given = false;
    app.add_option("--transport", c.transport, "transport driver (built: " + driver_names() + ")")->capture_default_str();
    add_enum(app, "--protocol", c.protocol,
             {{"pull", Protocol::pull}, {"push", Protocol::push}, {"pull-noem", Protocol::pull_no_em}},
             "event-building protocol");
    add_enum(app, "--scheduling", c.scheduling, {{"barrel", Scheduling::barrel_shift}, {"random", Scheduling::random}},
             "order in which BUs visit RUs (PULL) or RUs visit BUs (PUSH)");
    app.add_option("--nodes", c.nodes, "event-building nodes N (one RU + one BU each); default: from the process count, 4 on local");
    app.add_option("--ppn", c.ppn, "processes per node: 1 (RU and BU in one process) or 2");
    add_enum(app, "--em", c.em, {{"rank0", EmPlacement::rank0}, {"own", EmPlacement::own_rank}},
             "where the event manager runs");
    app.add_option("--credits", c.credits, "events each BU builds in parallel (c)");
    app.add_option("--parallel", c.parallel, "fragment requests in flight per credit (PULL) or writes per RU (PUSH)");
    add_quantity<std::uint64_t>(app, "--fragment-size", c.fragment_size, parse_size,
                                "mean fragment size incl. 32 B header (e.g. 1MiB, 512KB)", format_size(c.fragment_size));
    add_enum(app, "--size-dist", c.size_distribution,
             {{"fixed", SizeDistribution::fixed}, {"uniform", SizeDistribution::uniform},
              {"normal", SizeDistribution::normal}, {"lognormal", SizeDistribution::lognormal}},
             "per-event fragment size distribution");
    app.add_option("--size-spread", c.size_spread, "uniform: +-fraction of the size; normal/lognormal: sigma/size");
    app.add_option("--ru-scale", c.ru_scale, "per-RU size factors, one per node (e.g. 1,1,0.5,0.875)")->delimiter(',');
    app.add_option("--events", c.events, "stop after this many events (0: run for --duration)");
    add_quantity<Picoseconds>(app, "--duration", c.duration, parse_duration, "stop assigning events after this time", "5s")
        ->each([&](const std::string&) { duration_given = true; });
    add_quantity<Picoseconds>(app, "--grace", c.grace, parse_duration,
                              "time allowed after the duration to drain and gather; then the run fails", "10s");
    add_quantity<Picoseconds>(app, "--progress-interval", c.progress_interval, parse_duration,
                              "time between progress lines (sim: a tenth of the duration)", "1s")
        ->each([&](const std::string&) { progress_given = true; });
    add_enum(app, "--verify", c.verify, {{"header", Verify::header}, {"full", Verify::full}},
             "BU check per fragment: header only, or header + payload checksum");
    app.add_option("--seed", c.seed, "seed of random scheduling and size distributions");
    app.add_option("--safety-margin", c.safety_margin, "m of eq. 3.1 (B = m N c f), at least 2");
    add_quantity<std::uint64_t>(app, "--memory", c.memory, parse_size,
                                "buffer budget per RU and per BU (default: exactly m N c f)", "auto");
    app.add_option("--json", c.json_file, "write configuration and results as JSON to this file");
    app.add_option("--bootstrap", c.bootstrap,
                   "host:port of rank 0's bootstrap service (default: $EVBENCH_BOOTSTRAP, or 127.0.0.1 and a port from the job id)");
    app.add_option("--listen-host", c.listen_host, "address this rank's data transport listens on (default: 127.0.0.1 on one host, else the hostname)");
    app.add_option("--launch-local", c.launch_local, "fork this many processes on this machine (tcp and other multi-process transports)");
    app.add_flag("--quiet", c.quiet, "no header or progress lines, only the final table");
    app.add_option("--log-level", c.log_level, "trace, debug, info, warn, error, off");
    app.add_option("--verbs-device", c.verbs_device, "verbs: RDMA device (e.g. mlx5_0, rxe0; default: the one owning --listen-host)");
    app.add_option("--verbs-port", c.verbs_port, "verbs: port of the RDMA device");
    app.add_flag("--mpi-rma", c.mpi_rma, "mpi transport: write fragments with MPI_Put into a dynamic window (default: send/receive)");
    app.add_option("--baseline", c.baseline, "alltoall: under mpirun, MPI_Alltoall moving the event builder's bytes per node, instead of it");
    // The simulated transport's fabric and model: the flags of `evbench netsim`.
    auto* sim = app.add_option_group("Simulated fabric (--transport sim)");
    netsim::add_fabric_options(*sim, c.sim_fabric);
    netsim::add_sim_model_options(*sim, c.sim_model);
    add_quantity<Picoseconds>(*sim, "--warmup", c.sim_warmup, parse_duration,
                              "simulated runs: bytes and events count from this time on (the start fills every credit at once)", "0s");
    sim->add_flag("--ports", c.sim_all_ports, "list every port in the network counters, not only the 8 most stalled");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        help_out << app.help();
        return std::nullopt;
    } catch (const CLI::CallForAllHelp&) {
        help_out << app.help("", CLI::AppFormatMode::All);
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        std::string what = e.what();
        if (what.rfind("INI was not able to parse", 0) == 0 || what.find("not able to parse") != std::string::npos)
            what = "config file has an unknown key: " + what;
        throw ConfigError(what);
    }
    try {
        c.sim_model.resolve();
    } catch (const std::invalid_argument& e) {
        throw ConfigError(e.what());
    }
    c.sim_model.sim.seed = c.seed;
    // With only --events, the run is not cut short by the default duration.
    if (c.events && !duration_given) c.duration = Picoseconds(0);
    // Simulated time is dear: a millisecond unless asked, with ten progress lines.
    if (c.transport == "sim") {
        if (!c.events && !duration_given) c.duration = Picoseconds::from_seconds(1e-3);
        if (!progress_given) c.progress_interval = c.duration > Picoseconds(0) ? Picoseconds(c.duration.count() / 10) : Picoseconds::from_seconds(1e-3);
    }
    return c;
}

} // namespace evb
