// evbench's command-line entry: parse, pick the driver, then run in this process, launch local
// processes, or run as one rank of an mpirun/srun/launcher job; src/report prints the outcome.
#include "app/command_line.hpp"
#include "core/interrupt.hpp"
#include "units/layout.hpp"
#include "control/local_launcher.hpp"
#include "core/log.hpp"
#include "core/output_file.hpp"
#include "core/printable_text.hpp"
#include "drivers/transport/rails_transport.hpp"
#include "report/report.hpp"
#include "netsim/fabric/routing.hpp"
#include "control/run_key_source.hpp"
#include "exec/run_deadline.hpp"
#include "app/subcommands.hpp"
#include "core/socket_util.hpp"
#include "control/world.hpp"

#include <iostream>

using namespace evb;

namespace {

int usage_error(const std::string& message) {
    std::cerr << "evbench: error: " << printable_text(message, error_line_limit) << "\n";
    return 2;
}

int run(int argc, const char* const* argv) {
    CommandLine cl;
    if (!cl.parse(argc, argv, std::cout)) return 0;
    Config& config = cl.config;
    if (!set_log_level(config.log_level))
        return usage_error("--log-level: unknown level '" + config.log_level + "' (choose trace, debug, info, warn, error or off)");

    const DriverEntry* entry = cl.drivers.find(config.transport);
    if (!entry) return usage_error("--transport: unknown transport '" + config.transport + "' (built: " + cl.drivers.names() + ")");
    const Driver& driver = *entry->driver;
    if (entry->complete) entry->complete(config, cl.options);
    cl.refuse_what_does_not_apply();
    if (!config.rails.empty() && !driver.takes_rails())
        return usage_error("--rails: --transport " + config.transport + " takes one NIC (rails work with verbs, ofi, ucx and tcp)");
    if (*driver.no_wait_object() && config.poll == PollMode::event) // nothing would wake it: refused, not ignored
        return usage_error("--poll event: not with --transport " + config.transport + ": " + driver.no_wait_object() +
                           "; use --poll adaptive (naps when idle) or spin");
    if (config.threads == UnitThreads::per_unit && !entry->per_unit_refusal.empty())
        return usage_error("--threads per-unit: not with --transport " + config.transport + ": " + entry->per_unit_refusal);
    const bool with_manager = config.has_manager();

    auto world = detect_world();
    if (!world || world->rank == 0) cl.options.check_files(); // the process that writes them: before any work
    if (!world) { // one line here, not one per rank
        driver.preflight();
        if (!config.listen_host.empty() && config.launch_local) { // the ranks listen there, or find their NIC by it: is it here?
            try {
                const ClosesFd probe{listen_on(config.listen_host, 0, 1)};
            } catch (const std::exception& e) {
                return usage_error("--listen-host " + config.listen_host + ": " + e.what());
            }
        }
        for (const auto& nic : nic_list(config.rails))
            if (!nic.empty()) driver.preflight_rail(nic); // empty names: validate() says so
    }
    // --json -: the process that writes it (not a local launcher, whose ranks inherit its
    // standard output) keeps standard output for it and prints the report to standard error.
    if (world ? world->rank == 0 : !config.launch_local) {
        cl.options.take_stdout_if_asked();
        if (config.format != ReportFormat::table) take_stdout_for_output(); // for the row alone (report_outcome)
    }
    for (const auto& e : cl.drivers.entries())
        if (e.instead)
            if (auto code = e.instead(
                    config, cl.options, world, [&] { return cl.echo(); }, std::cout))
                return *code;

    const bool one_per_rank = driver.processes() == Driver::Processes::one_per_rank;
    if (!one_per_rank && !config.run_key_file.empty())
        return usage_error("--run-key-file: --transport " + config.transport +
                           " runs every rank in one process, with no connection to prove a key on");
    for (const char* flag : {"bootstrap", "listen-host"})
        if (!one_per_rank && cl.options.given(flag))
            return usage_error(std::string("--") + flag + ": --transport " + config.transport +
                               " runs every rank in one process, with no connection between ranks");
    if (config.launch_local && !world) {
        if (!one_per_rank)
            return usage_error("--launch-local needs a multi-process transport; '" + config.transport + "' runs in one process");
        if (!entry->launch_local_refusal.empty())
            return usage_error("--launch-local: not with --transport " + config.transport + ": " + entry->launch_local_refusal);
        if (auto refusal =
                multi_host_refusal(config.launch_local, config.launch_hosts, config.host_index, config.bootstrap, config.run_key_file))
            return usage_error(*refusal);
        const std::uint32_t ranks = config.launch_local * config.launch_hosts; // bounded by the refusal: no overflow
        if (config.nodes == 0) config.nodes = Layout::nodes_for_ranks(ranks, config.ppn, with_manager, config.em);
        validate(config);
        Layout layout = Layout::from_config(config);
        if (layout.ranks() != ranks)
            return usage_error("--launch-local " + std::to_string(config.launch_local) +
                               (config.launch_hosts > 1 ? " on " + std::to_string(config.launch_hosts) + " hosts" : std::string()) +
                               " does not match --nodes " + std::to_string(config.nodes) + " (needs " + std::to_string(layout.ranks()) +
                               " processes)");
        if (run_key_given(config.run_key_file)) choose_run_key(World{}, config.run_key_file); // one line here, not one per rank
        return launch_local({config.launch_local, config.host_index * config.launch_local, ranks, run_deadline(config), config.grace,
                             config.survives_failures(), config.bootstrap, config.run_key_file},
                            argc, argv);
    }
    // The local launcher's ranks run its very command line; a rank of another launcher's job
    // cannot also launch.
    if (config.launch_local && world && world->launcher != local_launcher_name)
        return usage_error("--launch-local: this process is already rank " + std::to_string(world->rank) + " of " +
                           std::to_string(world->size) + " launched by " + world->launcher + "; give one or the other");
    std::optional<RunKey> key;
    if (one_per_rank) {
        if (!world)
            return usage_error("transport '" + config.transport + "' runs one process per rank: use --launch-local N, mpirun or srun");
        key = choose_run_key(*world, config.run_key_file);
        set_log_rank(static_cast<int>(world->rank));
        if (config.nodes == 0) config.nodes = Layout::nodes_for_ranks(world->size, config.ppn, with_manager, config.em);
        validate(config);
        if (world->rank != 0) config.quiet = true;
    } else {
        if (world && world->size > 1 && world->rank > 0) return 0; // every rank in one process: rank 0 does it all
        if (config.nodes == 0) config.nodes = 4;
        validate(config);
    }
    // Ctrl-C or SIGTERM from here on ends the run as its duration would, and it still reports.
    catch_interrupts();
    ConsoleReport console(std::cout, config, entry->simulated_time);
    RunOutcome outcome = entry->run(config, RunContext{world, cl.fingerprint(), key ? &*key : nullptr, console});
    return report_outcome(std::cout, std::cerr, config, cl.echo(), cl.invocation(argc, argv, world ? world->launcher : "none"), outcome,
                          console.samples());
}

// `evbench help [COMMAND]`: that command's --help (the event builder's without one).
int help_command(int argc, char** argv) {
    if (argc > 2) return usage_error("help takes one command at most (" + subcommand_names() + ")");
    const char* help[] = {argc == 2 ? argv[1] : "evbench", "--help", nullptr};
    if (argc == 1) return run(2, help);
    const Subcommand* sub = find_subcommand(argv[1]);
    if (!sub) return usage_error("help: unknown command '" + std::string(argv[1]) + "' (" + subcommand_names() + ")");
    return sub->run(2, help, std::cout);
}

} // namespace

int main(int argc, char** argv) {
    try {
        if (argc > 1 && std::string(argv[1]) == "help") return help_command(argc - 1, argv + 1);
        if (argc > 1)
            if (const Subcommand* sub = find_subcommand(argv[1])) return sub->run(argc - 1, argv + 1, std::cout);
        return run(argc, argv);
    } catch (const ConfigError& e) {
        return usage_error(e.what());
    } catch (const std::invalid_argument& e) { // bad input found late: a fabric file, impossible model parameters
        return usage_error(e.what());
    } catch (const netsim::RoutingError& e) {
        return usage_error(e.what());
    } catch (const std::exception& e) {
        // A rank of a multi-process run says which it is: survivors of a failure all report.
        std::optional<World> world;
        try {
            world = detect_world();
        } catch (const std::exception&) {}
        const std::string line = printable_text(e.what(), error_line_limit);
        if (world && world->size > 1)
            std::cerr << "evbench[rank " << world->rank << "]: error: " << line << "\n";
        else
            std::cerr << "evbench: error: " << line << "\n";
        return 1;
    }
}
