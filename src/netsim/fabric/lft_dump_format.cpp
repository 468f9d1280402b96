#include "netsim/fabric/lft_dump_format.hpp"

#include "netsim/fabric/dump_error.hpp"
#include "core/input_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <map>
#include <regex>
#include <sstream>

namespace evb::netsim {
namespace {

struct Where {
    std::string file;
    std::size_t line = 0;
};

struct Reader {
    const Topology& t;
    Routing routing;
    std::map<std::uint64_t, std::uint32_t> switch_by_guid;
    std::vector<Where> block_of; // per device: where its table starts
    std::map<std::pair<std::uint32_t, std::uint32_t>, Where> entry_at; // (device, LID) -> line

    explicit Reader(const Topology& topology) : t(topology), block_of(topology.devices().size()) {
        routing.lft.resize(t.devices().size());
        for (auto s : t.switches()) switch_by_guid[t.device(s).guid] = s;
    }

    void read(std::istream& in, const std::string& file) {
        static const std::regex header(
            R"re(^Unicast lids \[0x[0-9a-fA-F]+-0x[0-9a-fA-F]+\] of switch .*guid 0x([0-9a-fA-F]+) \((.*)\):$)re");
        static const std::regex entry(R"re(^0x([0-9a-fA-F]+) (\d+) : .*$)re");
        static const std::regex trailer(R"re(^(\d+) (?:valid )?lids dumped$)re");
        static const std::regex column_heads(R"re(^(Lid\s+Out\s+Destination|Port\s+Info)$)re");
        std::string raw;
        std::size_t line_no = 0, block_line = 0, listed = 0;
        std::uint32_t sw = UINT32_MAX;
        std::string sw_desc;
        auto fail = [&](const std::string& reason) { throw DumpError(file, line_no, reason); };
        // Numbers too large for their field (a GUID beyond 64 bits) are the dump's fault too.
        try {
            while (std::getline(in, raw)) {
                ++line_no;
                auto b = raw.find_first_not_of(" \t\r");
                std::string line = b == std::string::npos ? "" : raw.substr(b, raw.find_last_not_of(" \t\r") - b + 1);
                std::smatch m;
                if (line.empty() || line.rfind("***", 0) == 0 || line.rfind("ibwarn:", 0) == 0 || std::regex_match(line, column_heads))
                    continue;
                if (std::regex_match(line, m, header)) {
                    if (sw != UINT32_MAX)
                        fail("the table of " + sw_desc + " (line " + std::to_string(block_line) +
                             ") ends without 'valid lids dumped' (truncated?)");
                    auto it = switch_by_guid.find(std::stoull(m[1], nullptr, 16));
                    if (it == switch_by_guid.end()) fail("switch guid 0x" + m[1].str() + " (" + m[2].str() + ") is not in the topology");
                    sw = it->second;
                    sw_desc = "switch " + t.device(sw).name;
                    if (!routing.lft[sw].empty())
                        fail("a second table for " + sw_desc + " (first at " + block_of[sw].file + ":" + std::to_string(block_of[sw].line) +
                             ")");
                    routing.lft[sw].assign(t.max_lid() + 1, no_port);
                    block_of[sw] = {file, line_no};
                    block_line = line_no;
                    listed = 0;
                } else if (std::regex_match(line, m, entry)) {
                    if (sw == UINT32_MAX) fail("an LFT entry outside a 'Unicast lids ... of switch' block");
                    ++listed;
                    std::uint32_t lid = dump_number(m[1], 16, 0xFFFF), port = dump_number(m[2]);
                    const Device& d = t.device(sw);
                    if (port > d.ports.size())
                        fail("LFT of " + d.name + " sends LID " + std::to_string(lid) + " to port " + std::to_string(port) +
                             "; the switch has ports 1.." + std::to_string(d.ports.size()));
                    auto dst = t.device_by_lid(lid);
                    if (!dst) continue; // a LID the topology does not hold (a router, a stale entry): never used
                    if (port == 0) {
                        if (*dst != sw)
                            fail("LFT of " + d.name + " sends LID " + std::to_string(lid) + " (" + t.device(*dst).name +
                                 ") to port 0, the switch itself");
                        continue;
                    }
                    if (!d.ports[port - 1])
                        fail("LFT of " + d.name + " sends LID " + std::to_string(lid) + " (" + t.device(*dst).name + ") to port " +
                             std::to_string(port) + ", which is not cabled");
                    routing.lft[sw][lid] = static_cast<std::uint16_t>(port - 1);
                    entry_at[{sw, lid}] = {file, line_no};
                } else if (std::regex_match(line, m, trailer)) {
                    if (sw == UINT32_MAX) fail("'lids dumped' outside a table");
                    if (std::stoul(m[1]) != listed)
                        fail("the table of " + sw_desc + " says " + m[1].str() + " lids but lists " + std::to_string(listed) +
                             " (truncated?)");
                    sw = UINT32_MAX;
                } else {
                    fail("not an ibroute/dump_lfts line: '" + line + "'");
                }
            }
        } catch (const std::out_of_range&) {
            fail("number out of range in '" + raw + "'");
        }
        if (sw != UINT32_MAX)
            throw DumpError(file, block_line, "the table of " + sw_desc + " ends without 'valid lids dumped' (truncated?)");
    }

    void check(const std::vector<std::string>& paths) {
        std::string all_files;
        for (const auto& p : paths) all_files += (all_files.empty() ? "" : ",") + p;
        for (auto s : t.switches())
            if (routing.lft[s].empty())
                throw DumpError(all_files, 0,
                                "no table for switch " + t.device(s).name + fmt::format(" (guid {:#018x})", t.device(s).guid));
        try {
            check_all_pairs(t, routing);
        } catch (const RoutingError& e) {
            if (e.device != UINT32_MAX) {
                auto it = entry_at.find({e.device, e.lid});
                const Where& w = it != entry_at.end() ? it->second : block_of[e.device];
                if (!w.file.empty()) throw DumpError(w.file, w.line, e.what());
            }
            throw DumpError(all_files, 0, e.what());
        }
    }
};

std::string port_info(const Topology& t, std::uint32_t d) {
    const Device& dev = t.device(d);
    bool sw = dev.kind == DeviceKind::switch_;
    return fmt::format("({} portguid {:#018x}: '{}')", sw ? "Switch" : "Channel Adapter", sw ? dev.guid : dev.guid + dev.adapter_port,
                       dev.name);
}

} // namespace

Routing read_lft_dumps(const std::vector<std::string>& paths, const Topology& topology) {
    if (paths.empty()) throw std::invalid_argument("no LFT dump given");
    Reader reader(topology);
    for (const auto& path : paths) {
        std::istringstream in(read_input_file(path, dump_file_limit, "the LFT dump"));
        reader.read(in, path);
    }
    reader.check(paths);
    return std::move(reader.routing);
}

void write_lft_dump(const Topology& t, const Routing& r, std::ostream& out) {
    for (auto s : t.switches()) {
        const Device& d = t.device(s);
        fmt::print(out, "Unicast lids [0x0-{:#x}] of switch Lid {} guid {:#018x} ({}):\n  Lid  Out   Destination\n       Port     Info \n",
                   t.max_lid(), d.lid, d.guid, d.name);
        std::size_t listed = 0;
        for (std::uint32_t lid = 1; lid <= t.max_lid(); ++lid) {
            auto dst = t.device_by_lid(lid);
            if (!dst) continue;
            std::uint16_t port = r.lft[s].size() > lid ? r.lft[s][lid] : no_port;
            if (*dst == s)
                fmt::print(out, "{:#06x} 000 : {}\n", lid, port_info(t, *dst));
            else if (port != no_port)
                fmt::print(out, "{:#06x} {:03} : {}\n", lid, port + 1, port_info(t, *dst));
            else
                continue;
            ++listed;
        }
        fmt::print(out, "{} valid lids dumped \n", listed);
    }
}

} // namespace evb::netsim
