#include "netsim/fabric/fabric_options.hpp"

#include "netsim/fabric/host_order.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/lft_dump_format.hpp"
#include "netsim/fabric/link_rate.hpp"

#include "core/options.hpp"

#include <algorithm>

namespace evb::netsim {

void declare_fabric_options(OptionSet& set, FabricOptions& o) {
    set.whole("k", o.tree.k, "k",
              "arity: switches of 2k ports; 2 levels: 2k leaves, k spines, up to 2k^2 hosts (`--transport sim` without `--k`: sized by "
              "`--radix`)")
        .above_zero();
    set.whole("radix", o.radix, "R",
              "`--transport sim` without `--k`: the tree for the nodes (+1 host for `--em own`) from R-port switches: R/2 hosts per leaf, "
              "as many leaves as needed, 2 levels up to R^2/2 hosts, 3 levels beyond (up to R^3/4)")
        .above_zero();
    set.whole("levels", o.tree.levels, "2|3",
              "2, or 3 (2k pods of k leaves + k aggregation switches, k^2 cores, up to 2k^3 hosts); `--transport sim` without `--k`: 2 "
              "while the hosts fit")
        .shown_default("2")
        .above_zero();
    set.whole("leaves", o.tree.leaves, "n", "leaves present").shown_default("all").above_zero();
    set.whole(
           "spines", o.tree.spines, "n",
           "2 levels: spines, each leaf spreading its k up-links over them (k / n parallel cables to each; n divides k; at most 2n leaves)")
        .shown_default("k")
        .above_zero();
    set.whole_list("hosts-per-leaf", o.tree.hosts_per_leaf, "a,b,...", "hosts on each leaf, one number per leaf").shown_default("k each");
    set.whole_list("missing", o.tree.missing_hosts, "s,...", "host slots (leaf*k + port) left empty");
    set.text_list("swap", o.swaps, "A:B,...", "ranks whose host cables are swapped");
    set.text("routing", o.routing, "ENGINE", "`ftree`, `minhop`, `updn` or `random`");
    set.whole("routing-seed", o.seed, "n", "seed of `random` routing");
    set.whole("lid-seed", o.lid_seed, "n", "shuffle host LIDs like a subnet manager's discovery order (0: LIDs follow the cabling)");
    set.text("host-links", o.host_links, "KIND",
             "generated trees: the host cables' width and speed, e.g. `4xEDR` (100 Gb/s) or `4xHDR` (200)")
        .shown_default("--link-rate");
    set.text("switch-links", o.switch_links, "KIND", "generated trees: the switch-to-switch cables' width and speed, e.g. `4xHDR`")
        .shown_default("--link-rate");
    set.text("topology", o.topology_file, "FILE", "read the fabric from an `ibnetdiscover` dump instead of generating a fat tree")
        .reads_file()
        .excludes({"k", "levels", "leaves", "spines", "hosts-per-leaf", "missing", "swap", "lid-seed", "host-links", "switch-links"});
    set.text_list("lfts", o.lft_files, "FILE,...", "read the forwarding tables from `dump_lfts` / `ibroute` dumps instead of `--routing`")
        .reads_file();
    set.text("host-order", o.host_order, "ORDER", "rank order: `given`, `hostname`, `lid` or `cabling`")
        .shown_default("given (hostname with --topology)");
}

namespace {

// Gives generated cables the kinds of --host-links and --switch-links.
void label_links(Topology& t, const std::string& host_kind, const std::string& switch_kind) {
    for (const auto& [flag, kind] : {std::pair{"--host-links", &host_kind}, std::pair{"--switch-links", &switch_kind}})
        if (!kind->empty() && !link_data_gbps(*kind))
            throw std::invalid_argument(std::string(flag) + ": '" + *kind + "' is not " + link_kind_expected() + ", as in 4xEDR");
    for (std::uint32_t d = 0; d < t.devices().size(); ++d)
        for (std::uint32_t p = 0; p < t.device(d).ports.size(); ++p) {
            const auto& peer = t.device(d).ports[p];
            if (!peer) continue;
            const bool host_cable = t.device(d).kind == DeviceKind::host || t.device(peer->device).kind == DeviceKind::host;
            const std::string& kind = host_cable ? host_kind : switch_kind;
            if (!kind.empty()) t.set_link_kind({d, p}, kind);
        }
}

} // namespace

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
        label_links(f.topology, o.host_links, o.switch_links);
    } else {
        f.topology = read_ibnetdiscover(o.topology_file);
    }
    if (o.check_size) o.check_size(f.topology);
    if (o.lft_files.empty()) {
        f.routing = route(f.topology, engine, o.seed);
        f.routing_name = o.routing;
    } else {
        f.routing = read_lft_dumps(o.lft_files, f.topology);
        f.routing_name =
            "LFTs from " + o.lft_files.front() + (o.lft_files.size() > 1 ? " and " + std::to_string(o.lft_files.size() - 1) + " more" : "");
    }
    // Routing is a property of the fabric, so it is computed before ranks are placed.
    f.given_hosts = f.topology.hosts();
    f.topology.order_hosts(order_of_hosts(f.topology, order));
    f.host_order = o.host_order;
    return f;
}

double fastest_host_link_gbps(const FabricOptions& o, double default_gbps) {
    auto rate = [default_gbps](const std::string& kind) {
        return kind.empty() ? default_gbps : link_data_gbps(kind).value_or(default_gbps);
    };
    if (o.topology_file.empty()) return rate(o.host_links);
    const Topology t = read_ibnetdiscover(o.topology_file);
    double fastest = 0;
    for (auto h : t.hosts()) {
        const auto& kinds = t.device(h).link_kinds;
        fastest = std::max(fastest, rate(kinds.empty() ? std::string() : kinds[0]));
    }
    return fastest > 0 ? fastest : default_gbps;
}

} // namespace evb::netsim
