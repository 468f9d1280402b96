#include "conflicts_command.hpp"

#include "conflict_analyser.hpp"
#include "fat_tree.hpp"
#include "report.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace evb::netsim {

int conflicts_command(int argc, const char* const* argv, std::ostream& out) {
    FatTreeSpec spec;
    std::string engine_name = "ftree", json_file;
    std::uint64_t seed = 1, lid_seed = 0;
    std::vector<std::string> swaps;
    CLI::App app{"evbench conflicts: linear-shift conflicts of a routed 2-level fat tree (paper 003 sec. 4.1)",
                 "evbench conflicts"};
    app.allow_config_extras(CLI::config_extras_mode::error);
    app.set_config("--config", "", "read options from a TOML or INI file");
    app.add_option("--k", spec.k, "arity: 2k leaves of 2k ports, k spines, up to 2k^2 hosts")->capture_default_str();
    app.add_option("--leaves", spec.leaves, "leaves present (default 2k)");
    app.add_option("--hosts-per-leaf", spec.hosts_per_leaf, "hosts on each leaf, one number per leaf (default k each)")->delimiter(',');
    app.add_option("--missing", spec.missing_hosts, "host slots (leaf*k + port) left empty")->delimiter(',');
    app.add_option("--swap", swaps, "host cables swapped, as A:B pairs of ranks")->delimiter(',');
    app.add_option("--routing", engine_name, "ftree, minhop, updn or random")->capture_default_str();
    app.add_option("--seed", seed, "seed of the random routing engine")->capture_default_str();
    app.add_option("--lid-seed", lid_seed, "shuffle host LIDs like a subnet manager's discovery order (0: cabling order)");
    app.add_option("--json", json_file, "write the per-phase table as JSON");
    try {
        app.parse(argc, argv);
        for (const auto& s : swaps) {
            auto colon = s.find(':');
            if (colon == std::string::npos) throw std::invalid_argument("--swap: '" + s + "' is not A:B");
            spec.swapped_hosts.emplace_back(std::stoul(s.substr(0, colon)), std::stoul(s.substr(colon + 1)));
        }
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "evbench: error: " << e.what() << "\n";
        return 2;
    }
    try {
        RoutingEngine engine = parse_routing_engine(engine_name);
        Topology t = build_fat_tree(spec);
        if (lid_seed) t.assign_lids(lid_seed);
        Routing r = route(t, engine, seed);
        auto phases = analyse_linear_shift(t, r);
        std::uint32_t worst = 0, conflicting = 0;
        double relative = 0;   // mean phase speed, 1/flows on the worst channel
        fmt::print(out, "# {} hosts, {} switches, routing {}\n{:>6} {:>10} {:>24}\n", t.hosts().size(), t.switches().size(),
                   engine_name, "shift", "max_flows", "worst_channel");
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& p : phases) {
            worst = std::max(worst, p.max_flows);
            conflicting += p.max_flows > 1;
            relative += 1.0 / p.max_flows;
            std::string channel = t.device(p.worst.device).name + ":" + std::to_string(p.worst.port);
            fmt::print(out, "{:>6} {:>10} {:>24}\n", p.shift, p.max_flows, channel);
            rows.push_back({{"shift", p.shift}, {"max_flows", p.max_flows}, {"worst_channel", channel}});
        }
        relative /= static_cast<double>(phases.size());
        fmt::print(out, "# {} of {} phases conflict, worst {} flows on one channel; a full shift runs at {:.3f} of line rate\n",
                   conflicting, phases.size(), worst, relative);
        if (!json_file.empty())
            write_json_file(json_file, {{"hosts", t.hosts().size()}, {"routing", engine_name}, {"k", spec.k},
                                        {"conflicting_phases", conflicting}, {"worst", worst},
                                        {"relative_throughput", relative}, {"phases", rows}});
        return 0;
    } catch (const std::invalid_argument& e) {
        std::cerr << "evbench: error: " << e.what() << "\n";
        return 2;
    } catch (const RoutingError& e) {
        std::cerr << "evbench: error: " << e.what() << "\n";
        return 2;
    }
}

} // namespace evb::netsim
