#include "netsim/commands/fabric_command.hpp"

#include "netsim/fabric/conflict_analyser.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "netsim/commands/subcommand.hpp"
#include "netsim/fabric/host_order.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim/fabric/lft_dump_format.hpp"
#include "core/json_file.hpp"
#include "core/options.hpp"
#include "core/output_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>

namespace evb::netsim {
namespace {

template <typename Write>
void write_file(const std::string& path, const std::string& flag, Write write) {
    if (path.empty()) return;
    std::ostringstream text;
    write(text);
    write_output_file(path, flag, text.str());
}

} // namespace

int fabric_command(int argc, const char* const* argv, std::ostream& out) {
    FabricOptions fabric;
    std::string topology_out, lfts_out, hostfile_out, json_file;
    bool list_hosts = false;
    OptionSet options;
    options.begin_group("fabric", "Fabric");
    declare_fabric_options(options, fabric);
    options.begin_group("fabric-output", "Output");
    options.text("write-topology", topology_out, "FILE", "the fabric in `ibnetdiscover` format; ibsim reads it as a net file")
        .writes_file();
    options.text("write-lfts", lfts_out, "FILE", "the forwarding tables in `dump_lfts` format").writes_file();
    options.text("write-hostfile", hostfile_out, "FILE", "one host name (first word of the node description) per rank, in `--host-order`")
        .writes_file();
    options.on_off("hosts", list_hosts, "list every rank: host, LID, leaf and port");
    options.text("json", json_file, "FILE", "counts, the order comparison and the rank list").writes_file();
    return run_subcommand(std::string("evbench fabric: ") + fabric_summary, options, argc, argv, out, nullptr, [&] {
        Fabric f = build_fabric(fabric);
        const Topology& t = f.topology;
        std::map<std::uint32_t, std::uint32_t> per_level;
        for (auto s : t.switches()) ++per_level[t.device(s).level];
        std::map<std::string, std::uint32_t> kinds;
        std::uint32_t cables = 0;
        for (std::uint32_t d = 0; d < t.devices().size(); ++d)
            for (std::uint32_t p = 0; p < t.device(d).ports.size(); ++p)
                if (auto peer = t.device(d).ports[p]; peer && std::pair(d, p) < std::pair(peer->device, peer->port)) {
                    ++cables;
                    ++kinds[t.device(d).link_kinds[p].empty() ? "unknown kind" : t.device(d).link_kinds[p]];
                }
        std::string levels, kind_list;
        for (auto [level, n] : per_level) levels += fmt::format("{}{} at level {}", levels.empty() ? "" : ", ", n, level);
        for (const auto& [kind, n] : kinds) kind_list += fmt::format("{}{} {}", kind_list.empty() ? "" : ", ", n, kind);
        fmt::print(out, "# evbench fabric: {} hosts, {} switches ({}), {} cables ({}), LIDs up to {}, routing {}, host order {}\n",
                   t.hosts().size(), t.switches().size(), levels, cables, kind_list, t.max_lid(), f.routing_name, f.host_order);

        // The same fabric and routing, ranks placed four ways (paper 003 sec. 4.1).
        fmt::print(out, "{:>10} {:>20} {:>11} {:>13}\n", "host_order", "conflicting_phases", "worst_flows", "shift_speed");
        nlohmann::json orders = nlohmann::json::array();
        for (auto name : {"given", "hostname", "lid", "cabling"}) {
            HostOrder order = parse_host_order(name);
            auto sum = summarise(analyse_linear_shift(t, f.routing, order == HostOrder::given ? f.given_hosts : order_of_hosts(t, order)));
            fmt::print(out, "{:>10} {:>20} {:>11} {:>13.3f}\n", std::string(name) == f.host_order ? std::string("*") + name : name,
                       sum.conflicting, sum.worst, sum.relative);
            orders.push_back(
                {{"host_order", name}, {"conflicting_phases", sum.conflicting}, {"worst_flows", sum.worst}, {"shift_speed", sum.relative}});
        }
        nlohmann::json hosts = nlohmann::json::array();
        if (list_hosts) fmt::print(out, "{:>6} {:>24} {:>6} {:>24}\n", "rank", "host", "lid", "leaf:port");
        for (std::uint32_t r = 0; r < t.hosts().size(); ++r) {
            const Device& h = t.device(t.hosts()[r]);
            const PortRef at = *h.ports[0];
            std::string leaf = t.device(at.device).name + ":" + std::to_string(ib_port(t.device(at.device), at.port));
            if (list_hosts) fmt::print(out, "{:>6} {:>24} {:>6} {:>24}\n", r, h.name, h.lid, leaf);
            hosts.push_back(
                {{"rank", r}, {"host", h.name}, {"lid", h.lid}, {"guid", fmt::format("{:#018x}", h.guid)}, {"leaf_port", leaf}});
        }
        write_file(topology_out, "--write-topology", [&](std::ostream& o) { write_ibnetdiscover(t, o); });
        write_file(lfts_out, "--write-lfts", [&](std::ostream& o) { write_lft_dump(t, f.routing, o); });
        write_file(hostfile_out, "--write-hostfile", [&](std::ostream& o) { write_hostfile(t, o); });
        if (!json_file.empty())
            write_json_file(json_file,
                            {{"hosts", t.hosts().size()},
                             {"switches", t.switches().size()},
                             {"cables", cables},
                             {"routing", f.routing_name},
                             {"host_order", f.host_order},
                             {"orders", orders},
                             {"ranks", hosts}});
        return 0;
    });
}

} // namespace evb::netsim
