#include "fabric_options.hpp"

#include "host_order.hpp"
#include "ibnetdiscover_format.hpp"
#include "lft_dump_format.hpp"

#include <CLI/CLI.hpp>

namespace evb::netsim {

void add_fabric_options(CLI::App& app, FabricOptions& o) {
    auto* k = app.add_option("--k", o.tree.k, "arity: switches of 2k ports; 2 levels: 2k leaves, k spines, up to 2k^2 hosts")->capture_default_str();
    auto* levels = app.add_option("--levels", o.tree.levels, "2 or 3 (3: 2k pods of k leaves + k aggregation switches, k^2 cores, up to 2k^3 hosts)")
        ->capture_default_str();
    auto* leaves = app.add_option("--leaves", o.tree.leaves, "leaves present (default all)");
    auto* per_leaf = app.add_option("--hosts-per-leaf", o.tree.hosts_per_leaf, "hosts on each leaf, one number per leaf (default k each)")->delimiter(',');
    auto* missing = app.add_option("--missing", o.tree.missing_hosts, "host slots (leaf*k + port) left empty")->delimiter(',');
    auto* swap = app.add_option("--swap", o.swaps, "host cables swapped, as A:B pairs of ranks")->delimiter(',');
    app.add_option("--routing", o.routing, "ftree, minhop, updn or random")->capture_default_str();
    app.add_option("--routing-seed", o.seed, "seed of the random routing engine")->capture_default_str();
    auto* lid_seed = app.add_option("--lid-seed", o.lid_seed, "shuffle host LIDs like a subnet manager's discovery order (0: cabling order)");
    app.add_option("--topology", o.topology_file, "read the fabric from an ibnetdiscover dump instead of generating a fat tree")
        ->excludes(k, levels, leaves, per_leaf, missing, swap, lid_seed);
    app.add_option("--lfts", o.lft_files, "read forwarding tables from ibroute / dump_lfts dumps (one or more files) instead of --routing")
        ->delimiter(',');
    app.add_option("--host-order", o.host_order, "rank order: given, hostname, lid or cabling (default: given; hostname for --topology)");
}

Fabric build_fabric(FabricOptions o) {
    for (const auto& s : o.swaps) {
        auto colon = s.find(':');
        std::size_t used_a = 0, used_b = 0;
        unsigned long a = 0, b = 0;
        try {
            if (colon == std::string::npos) throw std::invalid_argument("");
            a = std::stoul(s.substr(0, colon), &used_a);
            b = std::stoul(s.substr(colon + 1), &used_b);
        } catch (const std::exception&) {
            used_a = 0;
        }
        if (colon == std::string::npos || used_a != colon || used_b != s.size() - colon - 1)
            throw std::invalid_argument("--swap: '" + s + "' is not A:B");
        o.tree.swapped_hosts.emplace_back(a, b);
    }
    RoutingEngine engine = parse_routing_engine(o.routing);
    if (o.host_order.empty()) o.host_order = o.topology_file.empty() ? "given" : "hostname";
    HostOrder order = parse_host_order(o.host_order);
    Fabric f;
    if (o.topology_file.empty()) {
        f.topology = build_fat_tree(o.tree);
        if (o.lid_seed) f.topology.assign_lids(o.lid_seed);
    } else {
        f.topology = read_ibnetdiscover(o.topology_file);
    }
    if (o.lft_files.empty()) {
        f.routing = route(f.topology, engine, o.seed);
        f.routing_name = o.routing;
    } else {
        f.routing = read_lft_dumps(o.lft_files, f.topology);
        f.routing_name = "LFTs from " + o.lft_files.front() + (o.lft_files.size() > 1 ? " and " + std::to_string(o.lft_files.size() - 1) + " more" : "");
    }
    // Routing is a property of the fabric, so it is computed before ranks are placed.
    f.given_hosts = f.topology.hosts();
    f.topology.order_hosts(order_of_hosts(f.topology, order));
    f.host_order = o.host_order;
    return f;
}

} // namespace evb::netsim
