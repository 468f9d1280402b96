#include "netsim/fabric/ibnetdiscover_format.hpp"

#include "netsim/fabric/dump_error.hpp"
#include "core/input_file.hpp"
#include "netsim/fabric/link_rate.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <optional>
#include <regex>
#include <sstream>

namespace evb::netsim {
namespace {

struct PortLine {
    std::uint32_t port = 0, remote_port = 0;
    std::string remote_id, link_kind;
    std::uint32_t own_lid = 0; // adapters give their port's LID on the port line
    std::size_t line = 0;
};

struct NodeRecord {
    DeviceKind kind = DeviceKind::host;
    std::string id, description;
    std::uint32_t port_count = 0;
    std::uint64_t guid = 0;
    std::uint32_t lid = 0; // switches give it in the header
    std::size_t line = 0;
    std::map<std::uint32_t, PortLine> ports;
};

std::uint64_t parse_hex(const std::string& text) { return std::stoull(text, nullptr, 16); }

// "S-0002c90300001234" -> the GUID; other ids (ibsim net files name nodes freely) -> none.
std::optional<std::uint64_t> guid_in_id(const std::string& id) {
    static const std::regex pattern(R"re(^[SHR]-([0-9a-fA-F]{1,16})$)re");
    std::smatch m;
    if (std::regex_match(id, m, pattern)) return parse_hex(m[1]);
    return std::nullopt;
}

std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

struct Records {
    std::vector<NodeRecord> nodes;
    std::map<std::string, std::size_t> by_id; // node id -> index in nodes
};

Records parse_records(std::istream& in, const std::string& file) {
    static const std::regex header(R"re(^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"\s*(?:#\s*"([^"]*)"(.*))?$)re");
    static const std::regex port_line(
        R"re(^\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*"([^"]*)"\[(\d+)\](?:\[ext \d+\])?(?:\(([0-9a-fA-F]+)\))?\s*(?:#(.*))?$)re");
    static const std::regex guid_line(R"re(^(switchguid|caguid|rtguid)=(?:0x)?([0-9a-fA-F]+)(?:\([0-9a-fA-F]+\))?$)re");
    static const std::regex other_key(R"re(^(vendid|devid|sysimgguid|include|do)\b.*$)re");
    static const std::regex lid_in(R"re(\blid (\d+))re");
    static const std::regex link_kind(R"re(\b(\d+x[A-Za-z0-9.]+)\s*$)re");
    static const std::regex own_lid(R"re(^\s*lid (\d+))re");

    Records records;
    std::vector<NodeRecord>& nodes = records.nodes;
    std::uint64_t pending_guid = 0; // from the switchguid= / caguid= line before a node; 0: none
    std::string raw;
    std::size_t line_no = 0;
    auto fail = [&](const std::string& reason) { throw DumpError(file, line_no, reason); };
    while (std::getline(in, raw)) {
        ++line_no;
        std::string line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        std::smatch m;
        try {
            if (std::regex_match(line, m, guid_line)) {
                pending_guid = parse_hex(m[2]);
            } else if (std::regex_match(line, m, other_key)) {
                if (m[1] == "include" || m[1] == "do") fail("ibsim '" + m[1].str() + "' directives are not supported");
            } else if (std::regex_match(line, m, header)) {
                if (m[1] == "Rt") fail("routers are not supported");
                NodeRecord n;
                n.kind = m[1] == "Switch" ? DeviceKind::switch_ : DeviceKind::host;
                n.port_count = dump_number(m[2]);
                if (n.port_count == 0 || n.port_count > 254) fail("a node has 1..254 ports (got " + m[2].str() + ")");
                n.id = m[3];
                if (n.id.empty()) fail("empty node id");
                n.description = m[4];
                std::string rest = m[5];
                std::smatch lm;
                if (n.kind == DeviceKind::switch_ && std::regex_search(rest, lm, lid_in)) n.lid = dump_number(lm[1]);
                n.guid = pending_guid ? pending_guid : guid_in_id(n.id).value_or(0);
                pending_guid = 0;
                n.line = line_no;
                if (auto [at, fresh] = records.by_id.emplace(n.id, nodes.size()); !fresh)
                    fail("node \"" + n.id + "\" is defined twice (first on line " + std::to_string(nodes[at->second].line) + ")");
                nodes.push_back(std::move(n));
            } else if (std::regex_match(line, m, port_line)) {
                if (nodes.empty()) fail("a port line before any Switch or Ca line");
                NodeRecord& n = nodes.back();
                PortLine p;
                p.port = dump_number(m[1]);
                p.remote_id = m[3];
                p.remote_port = dump_number(m[4]);
                p.line = line_no;
                std::string comment = m[6];
                std::smatch cm;
                if (std::regex_search(comment, cm, link_kind)) {
                    p.link_kind = cm[1];
                    if (!link_data_gbps(p.link_kind)) fail("link '" + p.link_kind + "': not " + link_kind_expected());
                }
                if (n.kind == DeviceKind::host && std::regex_search(comment, cm, own_lid)) p.own_lid = dump_number(cm[1]);
                if (p.port == 0 || p.port > n.port_count)
                    fail("port " + std::to_string(p.port) + " of \"" + n.id + "\", which has ports 1.." + std::to_string(n.port_count));
                if (n.ports.count(p.port)) fail("port " + std::to_string(p.port) + " of \"" + n.id + "\" is listed twice");
                n.ports.emplace(p.port, std::move(p));
            } else {
                fail("not an ibnetdiscover line: '" + line + "'");
            }
        } catch (const std::out_of_range&) {
            fail("number out of range in '" + line + "'");
        }
    }
    if (nodes.empty()) throw DumpError(file, 0, "no Switch or Ca in the file (empty or not an ibnetdiscover dump)");
    return records;
}

} // namespace

Topology parse_ibnetdiscover(std::istream& in, const std::string& file) {
    auto records = parse_records(in, file); // named, not a structured binding: clang 14 cannot capture those
    auto& nodes = records.nodes;
    auto& by_id = records.by_id;

    // Cables must be consistent from both ends and lead to nodes the file defines.
    for (const auto& n : nodes)
        for (const auto& [port, p] : n.ports) {
            auto it = by_id.find(p.remote_id);
            if (it == by_id.end())
                throw DumpError(file, p.line,
                                "port " + std::to_string(port) + " of \"" + n.id + "\" is cabled to \"" + p.remote_id +
                                    "\", which the file never defines (truncated dump?)");
            const NodeRecord& r = nodes[it->second];
            auto back = r.ports.find(p.remote_port);
            if (back == r.ports.end() || back->second.remote_id != n.id || back->second.remote_port != port)
                throw DumpError(file, p.line,
                                "\"" + n.id + "\"[" + std::to_string(port) + "] is cabled to \"" + r.id + "\"[" +
                                    std::to_string(p.remote_port) + "], but that port does not list it back");
        }

    Topology t;
    std::vector<std::uint32_t> device_of(nodes.size(), UINT32_MAX);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const NodeRecord& n = nodes[i];
        const std::string name = n.description.empty() ? n.id : n.description;
        if (n.kind == DeviceKind::switch_) {
            device_of[i] = t.add_device(DeviceKind::switch_, name, n.port_count);
        } else if (n.ports.size() > 1) {
            throw DumpError(file, n.line,
                            "adapter \"" + n.id + "\" has " + std::to_string(n.ports.size()) +
                                " cabled ports; evbench simulates one port per host");
        } else if (n.ports.size() == 1) {
            device_of[i] = t.add_device(DeviceKind::host, name, 1);
            t.set_adapter_port(device_of[i], n.ports.begin()->first, n.port_count);
        }
        if (device_of[i] != UINT32_MAX && n.guid) t.set_guid(device_of[i], n.guid);
    }
    auto index_of = [&](std::size_t node, std::uint32_t ib) { return nodes[node].kind == DeviceKind::switch_ ? ib - 1 : 0; };
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (const auto& [port, p] : nodes[i].ports) {
            std::size_t j = by_id[p.remote_id];
            PortRef a{device_of[i], index_of(i, port)}, b{device_of[j], index_of(j, p.remote_port)};
            if (t.peer(a)) continue; // cabled from the other end already
            try {
                t.connect(a, b);
            } catch (const std::invalid_argument& e) {
                throw DumpError(file, p.line, e.what());
            }
            if (!p.link_kind.empty()) {
                t.set_link_kind(a, p.link_kind);
                t.set_link_kind(b, p.link_kind);
            }
        }

    // LIDs: all given (ibnetdiscover) or none (an ibsim net file).
    std::size_t with_lid = 0, without = nodes.size();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (device_of[i] == UINT32_MAX) {
            --without;
            continue;
        }
        const NodeRecord& n = nodes[i];
        std::uint32_t lid = n.kind == DeviceKind::switch_ ? n.lid : n.ports.begin()->second.own_lid;
        if (lid) {
            t.set_lid(device_of[i], lid);
            ++with_lid;
            --without;
        } else if (with_lid) {
            throw DumpError(file, n.line, "\"" + n.id + "\" has no LID while earlier nodes have one");
        }
    }
    if (t.hosts().size() < 2)
        throw DumpError(file, 0, "the fabric has " + std::to_string(t.hosts().size()) + " cabled hosts; at least 2 are needed");
    try {
        if (with_lid && without) throw std::invalid_argument("some nodes have LIDs and others not");
        if (with_lid)
            t.index_lids();
        else
            t.assign_lids();
    } catch (const std::invalid_argument& e) {
        throw DumpError(file, 0, e.what());
    }
    t.assign_levels();
    return t;
}

Topology read_ibnetdiscover(const std::string& path) {
    std::istringstream in(read_input_file(path, dump_file_limit, "the topology file"));
    return parse_ibnetdiscover(in, path);
}

std::string hostname_of(const Device& host) {
    auto end = host.name.find_first_of(" \t");
    return host.name.substr(0, end);
}

void write_ibnetdiscover(const Topology& t, std::ostream& out) {
    auto id = [&](std::uint32_t d) {
        return fmt::format("{}-{:016x}", t.device(d).kind == DeviceKind::switch_ ? 'S' : 'H', t.device(d).guid);
    };
    auto remote = [&](PortRef peer) {
        const Device& r = t.device(peer.device);
        std::string s = fmt::format("\"{}\"[{}]", id(peer.device), ib_port(r, peer.port));
        if (r.kind == DeviceKind::host) s += fmt::format("({:x})", r.guid + r.adapter_port);
        return s;
    };
    fmt::print(out, "#\n# Topology file: written by evbench\n#\n\n");
    for (auto s : t.switches()) {
        const Device& d = t.device(s);
        fmt::print(out, "vendid=0x0\ndevid=0x0\nsysimgguid={0:#x}\nswitchguid={0:#x}({0:x})\n", d.guid);
        fmt::print(out, "Switch\t{} \"{}\"\t\t# \"{}\" base port 0 lid {} lmc 0\n", d.ports.size(), id(s), d.name, d.lid);
        for (std::uint32_t p = 0; p < d.ports.size(); ++p) {
            if (!d.ports[p]) continue;
            const Device& r = t.device(d.ports[p]->device);
            fmt::print(out, "[{}]\t{}\t\t# \"{}\" lid {}{}\n", p + 1, remote(*d.ports[p]), r.name, r.lid,
                       d.link_kinds[p].empty() ? "" : " " + d.link_kinds[p]);
        }
        fmt::print(out, "\n");
    }
    for (auto h : t.hosts()) {
        const Device& d = t.device(h);
        fmt::print(out, "vendid=0x0\ndevid=0x0\nsysimgguid={0:#x}\ncaguid={0:#x}\n", d.guid);
        fmt::print(out, "Ca\t{} \"{}\"\t\t# \"{}\"\n", d.adapter_ports, id(h), d.name);
        if (const auto& peer = d.ports[0]) {
            const Device& r = t.device(peer->device);
            fmt::print(out, "[{}]({:x}) \t\"{}\"[{}]\t\t# lid {} lmc 0 \"{}\" lid {}{}\n", d.adapter_port, d.guid + d.adapter_port,
                       id(peer->device), ib_port(r, peer->port), d.lid, r.name, r.lid,
                       d.link_kinds[0].empty() ? "" : " " + d.link_kinds[0]);
        }
        fmt::print(out, "\n");
    }
}

} // namespace evb::netsim
