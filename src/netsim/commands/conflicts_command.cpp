#include "netsim/commands/conflicts_command.hpp"

#include "netsim/fabric/conflict_analyser.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/commands/subcommand.hpp"
#include "core/json_file.hpp"
#include "core/options.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

namespace evb::netsim {

int conflicts_command(int argc, const char* const* argv, std::ostream& out) {
    FabricOptions fabric;
    std::string json_file;
    OptionSet options;
    options.begin_group("fabric", "Fabric");
    declare_fabric_options(options, fabric);
    options.begin_group("conflicts", "Output");
    options.whole("seed", fabric.seed, "n", "same as `--routing-seed`");
    options.text("json", json_file, "FILE", "per-phase table as JSON").writes_file();
    return run_subcommand(std::string("evbench conflicts: ") + conflicts_summary, options, argc, argv, out, nullptr, [&] {
        Fabric f = build_fabric(fabric);
        const Topology& t = f.topology;
        const Routing& r = f.routing;
        const std::string& engine_name = f.routing_name;
        auto phases = analyse_linear_shift(t, r);
        fmt::print(out, "# {} hosts, {} switches, routing {}\n{:>6} {:>10} {:>24}\n", t.hosts().size(), t.switches().size(), engine_name,
                   "shift", "max_flows", "worst_channel");
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
            write_json_file(json_file,
                            {{"hosts", t.hosts().size()},
                             {"routing", engine_name},
                             {"conflicting_phases", sum.conflicting},
                             {"worst", sum.worst},
                             {"relative_throughput", sum.relative},
                             {"phases", rows}});
        return 0;
    });
}

} // namespace evb::netsim
