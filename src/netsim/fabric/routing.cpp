#include "netsim/fabric/routing.hpp"

#include "netsim/fabric/ftree_routing.hpp"
#include "core/hash.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <tuple>

namespace evb::netsim {
namespace {

constexpr std::uint32_t unreachable = std::numeric_limits<std::uint32_t>::max();

bool is_switch(const Topology& t, std::uint32_t d) { return t.device(d).kind == DeviceKind::switch_; }

// Port usage counters balance the choice among equal ports (OpenSM does the same).
struct Usage {
    std::vector<std::vector<std::uint32_t>> count;
    explicit Usage(const Topology& t) {
        for (const auto& d : t.devices()) count.emplace_back(d.ports.size(), 0);
    }
};

Routing empty_tables(const Topology& t) {
    Routing r;
    r.lft.resize(t.devices().size());
    for (auto s : t.switches()) r.lft[s].assign(t.max_lid() + 1, no_port);
    return r;
}

// Hops from every switch to destination host `dst`; with `updn`, only paths that never go up
// (towards a lower level number's opposite: a higher level) after going down.
std::vector<std::uint32_t> distances_to(const Topology& t, std::uint32_t dst, bool updn) {
    // State index: device * 2 + (went_down ? 1 : 0). Backward BFS from the destination.
    std::vector<std::uint32_t> dist(t.devices().size() * 2, unreachable);
    std::deque<std::uint32_t> queue;
    dist[dst * 2] = dist[dst * 2 + 1] = 0;
    queue.push_back(dst * 2);
    queue.push_back(dst * 2 + 1);
    while (!queue.empty()) {
        std::uint32_t state = queue.front();
        queue.pop_front();
        std::uint32_t x = state / 2;
        bool x_down = state % 2;
        for (const auto& port : t.device(x).ports) {
            if (!port || !is_switch(t, port->device)) continue;
            std::uint32_t y = port->device; // a move y -> x
            bool up_move = t.device(x).level > t.device(y).level;
            for (int y_down = 0; y_down < 2; ++y_down) {
                if (updn) {
                    if (up_move && (y_down || x_down)) continue; // up only before any down
                    if (!up_move && !x_down) continue; // a down move puts us in the down phase
                }
                std::uint32_t ys = y * 2 + static_cast<std::uint32_t>(y_down);
                if (dist[ys] == unreachable) {
                    dist[ys] = dist[state] + 1;
                    queue.push_back(ys);
                }
            }
        }
    }
    std::vector<std::uint32_t> fresh(t.devices().size());
    for (std::uint32_t d = 0; d < fresh.size(); ++d) fresh[d] = dist[d * 2]; // packets start in the up phase
    return fresh;
}

Routing route_minimal(const Topology& t, RoutingEngine engine, std::uint64_t seed) {
    Routing r = empty_tables(t);
    Usage usage(t);
    bool updn = engine == RoutingEngine::updn;
    // Destinations in OpenSM's order, which the port counters follow: leaf by leaf, the leaves
    // with the most hosts first (then by their lowest LID), each leaf's hosts in port order.
    std::vector<std::uint32_t> destinations = t.hosts();
    auto leaf_of = [&](std::uint32_t h) { return t.device(h).ports[0] ? t.device(h).ports[0]->device : 0u; };
    std::vector<std::uint32_t> hosts_on(t.devices().size(), 0), first_lid(t.devices().size(), UINT32_MAX);
    for (auto h : destinations) {
        ++hosts_on[leaf_of(h)];
        first_lid[leaf_of(h)] = std::min<std::uint32_t>(first_lid[leaf_of(h)], t.device(h).lid);
    }
    auto order = [&](std::uint32_t h) {
        const std::uint32_t port = t.device(h).ports[0] ? t.device(h).ports[0]->port : 0u;
        return std::tuple(-static_cast<std::int64_t>(hosts_on[leaf_of(h)]), first_lid[leaf_of(h)], port, t.device(h).lid);
    };
    std::sort(destinations.begin(), destinations.end(), [&](auto a, auto b) { return order(a) < order(b); });
    for (auto dst : destinations) {
        auto dist = distances_to(t, dst, updn);
        std::uint32_t lid = t.device(dst).lid;
        for (auto s : t.switches()) {
            if (dist[s] == unreachable) continue;
            std::vector<std::uint16_t> best;
            const auto& ports = t.device(s).ports;
            for (std::uint16_t p = 0; p < ports.size(); ++p) {
                if (!ports[p]) continue;
                std::uint32_t next = ports[p]->device;
                if (next == dst || (is_switch(t, next) && dist[next] != unreachable && dist[next] + 1 == dist[s])) best.push_back(p);
            }
            if (best.empty()) continue;
            std::uint16_t chosen = best.front();
            if (engine == RoutingEngine::random) {
                chosen = best[mix64(seed, s, lid) % best.size()];
            } else {
                for (auto p : best)
                    if (usage.count[s][p] < usage.count[s][chosen]) chosen = p;
            }
            ++usage.count[s][chosen];
            r.lft[s][lid] = chosen;
        }
    }
    return r;
}

} // namespace

RoutingEngine parse_routing_engine(const std::string& name) {
    if (name == "ftree") return RoutingEngine::ftree;
    if (name == "minhop") return RoutingEngine::minhop;
    if (name == "updn") return RoutingEngine::updn;
    if (name == "random") return RoutingEngine::random;
    throw std::invalid_argument("unknown routing engine '" + name + "' (choose ftree|minhop|updn|random)");
}

std::string to_string(RoutingEngine e) {
    switch (e) {
    case RoutingEngine::ftree: return "ftree";
    case RoutingEngine::minhop: return "minhop";
    case RoutingEngine::updn: return "updn";
    case RoutingEngine::random: return "random";
    }
    return "?";
}

Routing route(const Topology& topology, RoutingEngine engine, std::uint64_t seed) {
    Routing r = engine == RoutingEngine::ftree ? route_ftree(topology) : route_minimal(topology, engine, seed);
    check_all_pairs(topology, r);
    return r;
}

std::vector<PortRef> trace(const Topology& t, const Routing& r, std::uint32_t src, std::uint32_t dst) {
    std::vector<PortRef> path;
    const std::uint32_t lid = t.device(dst).lid;
    auto describe = [&] { return t.device(src).name + " -> " + t.device(dst).name; };
    auto first = t.device(src).ports.at(0);
    if (!first) throw RoutingError(describe() + ": source host is not cabled");
    path.push_back({src, 0});
    std::uint32_t at = first->device;
    for (std::size_t hops = 0; at != dst; ++hops) {
        if (hops > t.devices().size()) throw RoutingError(describe() + ": routing loop through " + t.device(at).name, at, lid);
        if (!is_switch(t, at))
            throw RoutingError(describe() + ": delivered to the wrong host " + t.device(at).name, path.back().device, lid);
        std::uint16_t out = lid < r.lft[at].size() ? r.lft[at][lid] : no_port;
        if (out == no_port) throw RoutingError(describe() + ": unreachable, no LFT entry on " + t.device(at).name, at, lid);
        auto next = out < t.device(at).ports.size() ? t.device(at).ports[out] : std::nullopt;
        if (!next)
            throw RoutingError(describe() + ": LFT of " + t.device(at).name + " points to empty port " +
                                   std::to_string(ib_port(t.device(at), out)),
                               at, lid);
        path.push_back({at, out});
        at = next->device;
    }
    return path;
}

// A path after its first hop depends only on that hop's device and the destination, so one source
// per first-hop device (and a second one for the path to the first) covers every pair: L H traces
// for L leaves instead of H^2 (4096 hosts: 0.9 million instead of 17).
void check_all_pairs(const Topology& t, const Routing& r) {
    std::vector<std::uint32_t> first_of(t.devices().size(), UINT32_MAX), second_of(t.devices().size(), UINT32_MAX);
    std::vector<std::uint32_t> sources;
    for (auto a : t.hosts()) {
        const auto& cable = t.device(a).ports.at(0);
        if (!cable) {
            for (auto b : t.hosts())
                if (b != a) trace(t, r, a, b); // names the uncabled source
            continue;
        }
        if (first_of[cable->device] == UINT32_MAX) {
            first_of[cable->device] = a;
            sources.push_back(a);
        } else if (second_of[cable->device] == UINT32_MAX) {
            second_of[cable->device] = a;
        }
    }
    for (auto a : sources) {
        for (auto b : t.hosts())
            if (b != a) trace(t, r, a, b);
        const std::uint32_t device = t.device(a).ports[0]->device;
        if (second_of[device] != UINT32_MAX) trace(t, r, second_of[device], a);
    }
}

} // namespace evb::netsim
