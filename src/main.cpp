// evbench's command-line entry: parse, pick the driver, then run in this process, launch local
// processes, or run as one rank of an mpirun/srun/launcher job.
#include "cli.hpp"
#include "layout.hpp"
#include "local_launcher.hpp"
#include "log.hpp"
#include "netsim/conflicts_command.hpp"
#include "netsim/fabric_command.hpp"
#include "netsim/netsim_command.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "run_distributed.hpp"
#include "run_local.hpp"
#include "sim/sim_run.hpp"
#ifdef EVB_HAVE_MPI
#include "mpi/mpi_alltoall.hpp"
#endif
#include "world.hpp"

#include <iostream>

using namespace evb;

namespace {

int usage_error(const std::string& message) {
    std::cerr << "evbench: error: " << message << "\n";
    return 2;
}

int run(int argc, const char* const* argv) {
    auto parsed = parse_command_line(argc, argv, std::cout);
    if (!parsed) return 0;
    Config config = *parsed;
    if (!set_log_level(config.log_level)) return usage_error("--log-level: unknown level '" + config.log_level + "'");

    const DriverEntry* driver = find_driver(config.transport);
    if (!driver) return usage_error("--transport: unknown transport '" + config.transport + "' (built: " + driver_names() + ")");
    bool with_manager = config.protocol != Protocol::pull_no_em;

    auto world = detect_world();
    if (driver->preflight && !world) driver->preflight(config);   // one line here, not one per rank
    if (!config.baseline.empty()) {
        if (config.baseline != "alltoall") return usage_error("--baseline: unknown baseline '" + config.baseline + "' (choose alltoall)");
#ifdef EVB_HAVE_MPI
        if (!world || world->launcher == "evbench --launch-local")
            return usage_error("--baseline alltoall runs under mpirun or srun --mpi=pmix");
        if (config.nodes == 0) config.nodes = world->size;
        return run_alltoall_baseline(config, *world, std::cout);
#else
        return usage_error("--baseline alltoall needs the mpi driver, which this build lacks (no MPI found at configure time)");
#endif
    }
    if (config.launch_local && !world) {
        if (!driver->make_one)
            return usage_error("--launch-local needs a multi-process transport; '" + config.transport + "' runs in one process");
        if (config.nodes == 0) config.nodes = Layout::nodes_for_ranks(config.launch_local, config.ppn, with_manager, config.em);
        validate(config);
        Layout layout = Layout::from_config(config);
        if (layout.ranks() != config.launch_local)
            return usage_error("--launch-local " + std::to_string(config.launch_local) + " does not match --nodes " +
                               std::to_string(config.nodes) + " (needs " + std::to_string(layout.ranks()) + " processes)");
        return launch_local(config, argc, argv);
    }

    if (config.transport == "sim") {
        if (config.launch_local || (world && world->size > 1))
            return usage_error("transport 'sim' simulates every rank in one process: run it without a launcher");
        if (config.nodes == 0) config.nodes = 4;
        config.fragment_memory = 64;   // headers in memory; the rest exists on the simulated wire only
        validate(config);
        SimRunResult sim = run_simulated(config, std::cout);
        print_table(std::cout, config, sim.run);
        if (!config.json_file.empty()) {
            auto doc = result_json(config, sim.run);
            doc["results"]["network"] = sim.network;
            write_json_file(config.json_file, doc);
        }
        if (sim.run.exit_code() != 0)
            std::cerr << "evbench: error: "
                      << (sim.run.failure ? *sim.run.failure : "data errors: " + sim.run.system().errors.describe()) << "\n";
        return sim.run.exit_code();
    }
    if (driver->make_all) {
        if (world && world->size > 1 && world->rank > 0) return 0;   // in-process driver: rank 0 does it all
        if (config.nodes == 0) config.nodes = 4;
        validate(config);
        RunResult result = run_in_process(config, *driver, std::cout);
        print_table(std::cout, config, result);
        if (!config.json_file.empty()) write_json_file(config.json_file, result_json(config, result));
        if (result.exit_code() != 0)
            std::cerr << "evbench: error: "
                      << (result.failure ? *result.failure : "data errors: " + result.system().errors.describe()) << "\n";
        return result.exit_code();
    }

    if (!world)
        return usage_error("transport '" + config.transport +
                           "' runs one process per rank: use --launch-local N, mpirun or srun");
    set_log_rank(static_cast<int>(world->rank));
    if (config.nodes == 0) config.nodes = Layout::nodes_for_ranks(world->size, config.ppn, with_manager, config.em);
    validate(config);
    if (world->rank != 0) config.quiet = true;
    return run_distributed(config, *driver, *world, std::cout);
}

} // namespace

int main(int argc, char** argv) {
    try {
        if (argc > 1 && std::string(argv[1]) == "conflicts") return netsim::conflicts_command(argc - 1, argv + 1, std::cout);
        if (argc > 1 && std::string(argv[1]) == "fabric") return netsim::fabric_command(argc - 1, argv + 1, std::cout);
        if (argc > 1 && std::string(argv[1]) == "netsim") return netsim::netsim_command(argc - 1, argv + 1, std::cout);
        return run(argc, argv);
    } catch (const ConfigError& e) {
        return usage_error(e.what());
    } catch (const std::invalid_argument& e) {   // bad input found late: a fabric file, impossible model parameters
        return usage_error(e.what());
    } catch (const netsim::RoutingError& e) {
        return usage_error(e.what());
    } catch (const std::exception& e) {
        std::cerr << "evbench: error: " << e.what() << "\n";
        return 1;
    }
}
