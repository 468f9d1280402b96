#include "netsim/fabric/host_order.hpp"

#include "netsim/fabric/ibnetdiscover_format.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>
#include <stdexcept>
#include <tuple>

namespace evb::netsim {

HostOrder parse_host_order(const std::string& name) {
    if (name == "given") return HostOrder::given;
    if (name == "hostname") return HostOrder::hostname;
    if (name == "lid") return HostOrder::lid;
    if (name == "cabling") return HostOrder::cabling;
    throw std::invalid_argument("unknown host order '" + name + "' (choose given|hostname|lid|cabling)");
}

bool natural_less(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
        if (da && db) {
            std::size_t ei = a.find_first_not_of("0123456789", i), ej = b.find_first_not_of("0123456789", j);
            if (ei == std::string::npos) ei = a.size();
            if (ej == std::string::npos) ej = b.size();
            std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
            nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

std::vector<std::uint32_t> order_of_hosts(const Topology& t, HostOrder order) {
    std::vector<std::uint32_t> hosts = t.hosts();
    switch (order) {
    case HostOrder::given: break;
    case HostOrder::hostname:
        std::stable_sort(hosts.begin(), hosts.end(), [&](auto a, auto b) { return natural_less(t.device(a).name, t.device(b).name); });
        break;
    case HostOrder::lid:
        std::stable_sort(hosts.begin(), hosts.end(), [&](auto a, auto b) { return t.device(a).lid < t.device(b).lid; });
        break;
    case HostOrder::cabling: {
        // A leaf's place: its lowest-numbered up-link's peer (switch in name order, port there),
        // so leaves follow the cables of the first spine or aggregation switch; then the host's port.
        std::vector<std::uint32_t> switch_rank(t.devices().size(), 0);
        std::vector<std::uint32_t> by_name = t.switches();
        std::stable_sort(by_name.begin(), by_name.end(), [&](auto a, auto b) { return natural_less(t.device(a).name, t.device(b).name); });
        for (std::uint32_t i = 0; i < by_name.size(); ++i) switch_rank[by_name[i]] = i;
        auto key = [&](std::uint32_t h) {
            const auto& at = *t.device(h).ports[0];
            const Device& leaf = t.device(at.device);
            std::uint32_t up_switch = UINT32_MAX, up_port = UINT32_MAX;
            for (const auto& p : leaf.ports)
                if (p && t.device(p->device).kind == DeviceKind::switch_ && t.device(p->device).level > leaf.level) {
                    up_switch = switch_rank[p->device];
                    up_port = p->port;
                    break;
                }
            return std::make_tuple(up_switch, up_port, switch_rank[at.device], at.port);
        };
        std::stable_sort(hosts.begin(), hosts.end(), [&](auto a, auto b) { return key(a) < key(b); });
        break;
    }
    }
    return hosts;
}

void write_hostfile(const Topology& t, std::ostream& out) {
    for (auto h : t.hosts()) out << hostname_of(t.device(h)) << "\n";
}

} // namespace evb::netsim
