#include "conflicts_command.hpp"

#include "conflict_analyser.hpp"
#include "fabric_options.hpp"
#include "subcommand.hpp"
#include "report.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>


namespace evb::netsim {

int conflicts_command(int argc, const char* const* argv, std::ostream& out) {
    FabricOptions fabric;
    std::string json_file;
    CLI::App app{"evbench conflicts: linear-shift conflicts of a routed fat tree (paper 003 sec. 4.1)", "evbench conflicts"};
    app.allow_config_extras(CLI::config_extras_mode::error);
    app.set_config("--config", "", "read options from a TOML or INI file");
    add_fabric_options(app, fabric);
    app.add_option("--seed", fabric.seed, "same as --routing-seed");
    app.add_option("--json", json_file, "write the per-phase table as JSON");
    return run_subcommand(app, argc, argv, out, nullptr, [&] {
        Fabric f = build_fabric(fabric);
        const Topology& t = f.topology;
        const Routing& r = f.routing;
        const std::string& engine_name = f.routing_name;
        auto phases = analyse_linear_shift(t, r);
        fmt::print(out, "# {} hosts, {} switches, routing {}\n{:>6} {:>10} {:>24}\n", t.hosts().size(), t.switches().size(),
                   engine_name, "shift", "max_flows", "worst_channel");
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& p : phases) {
            std::string channel = t.device(p.worst.device).name + ":" + std::to_string(ib_port(t.device(p.worst.device), p.worst.port));
            fmt::print(out, "{:>6} {:>10} {:>24}\n", p.shift, p.max_flows, channel);
            rows.push_back({{"shift", p.shift}, {"max_flows", p.max_flows}, {"worst_channel", channel}});
        }
        const ShiftSummary sum = summarise(phases);
        fmt::print(out, "# {} of {} phases conflict, worst {} flows on one channel; a full shift runs at {:.3f} of line rate\n",
                   sum.conflicting, phases.size(), sum.worst, sum.relative);
        if (!json_file.empty())
            write_json_file(json_file, {{"hosts", t.hosts().size()}, {"routing", engine_name},
                                        {"conflicting_phases", sum.conflicting}, {"worst", sum.worst},
                                        {"relative_throughput", sum.relative}, {"phases", rows}});
        return 0;
    });
}

} // namespace evb::netsim
