#include "routing.hpp"

#include "hash.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <unordered_map>

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
            std::uint32_t y = port->device;   // a move y -> x
            bool up_move = t.device(x).level > t.device(y).level;
            for (int y_down = 0; y_down < 2; ++y_down) {
                if (updn) {
                    if (up_move && (y_down || x_down)) continue;   // up only before any down
                    if (!up_move && !x_down) continue;             // a down move puts us in the down phase
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
    for (std::uint32_t d = 0; d < fresh.size(); ++d) fresh[d] = dist[d * 2];   // packets start in the up phase
    return fresh;
}

Routing route_minimal(const Topology& t, RoutingEngine engine, std::uint64_t seed) {
    Routing r = empty_tables(t);
    Usage usage(t);
    bool updn = engine == RoutingEngine::updn;
    // Destinations in LID order, as OpenSM balances: the port counters then follow the LIDs.
    std::vector<std::uint32_t> by_lid = t.hosts();
    std::sort(by_lid.begin(), by_lid.end(), [&](auto a, auto b) { return t.device(a).lid < t.device(b).lid; });
    for (auto dst : by_lid) {
        auto dist = distances_to(t, dst, updn);
        std::uint32_t lid = t.device(dst).lid;
        for (auto s : t.switches()) {
            if (dist[s] == unreachable) continue;
            std::vector<std::uint16_t> best;
            const auto& ports = t.device(s).ports;
            for (std::uint16_t p = 0; p < ports.size(); ++p) {
                if (!ports[p]) continue;
                std::uint32_t next = ports[p]->device;
                if (next == dst || (is_switch(t, next) && dist[next] != unreachable && dist[next] + 1 == dist[s]))
                    best.push_back(p);
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

// Thesis listing 3.1 on a 2-level tree: the destination's leaf routes down to its port; the
// spine for the destination is picked by that port: the i-th host of a leaf, in port order,
// goes up through the leaf's up-port i mod (up-ports), as OpenSM's ftree does (its dummy hosts
// fill leaves from the end, so empty ports are skipped). Every spine routes down to the
// destination's leaf and every other leaf routes up to the chosen spine.
Routing route_ftree(const Topology& t) {
    Routing r = empty_tables(t);
    std::vector<std::uint32_t> leaves;
    for (auto s : t.switches())
        if (t.device(s).level == 0) leaves.push_back(s);
    for (auto leaf : leaves) {
        const auto& ports = t.device(leaf).ports;
        std::vector<std::uint16_t> up_ports;
        for (std::uint16_t q = 0; q < ports.size(); ++q)
            if (ports[q] && is_switch(t, ports[q]->device) && t.device(ports[q]->device).level > 0) up_ports.push_back(q);
        std::uint32_t position = 0;   // of the next host on this leaf
        for (std::uint16_t p = 0; p < ports.size(); ++p) {
            if (!ports[p] || is_switch(t, ports[p]->device)) continue;
            std::uint32_t lid = t.device(ports[p]->device).lid;
            r.lft[leaf][lid] = p;
            if (up_ports.empty()) continue;   // a lone leaf: nothing else to route
            const std::uint16_t up = up_ports[position++ % up_ports.size()];
            std::uint32_t spine = ports[up]->device;
            // Every spine routes down to this leaf; every other leaf routes up to `spine`.
            for (auto s : t.switches()) {
                if (t.device(s).level != 1) continue;
                const auto& sp = t.device(s).ports;
                for (std::uint16_t q = 0; q < sp.size(); ++q)
                    if (sp[q] && sp[q]->device == leaf) {
                        r.lft[s][lid] = q;
                        break;
                    }
            }
            for (auto other : leaves) {
                if (other == leaf) continue;
                const auto& op = t.device(other).ports;
                for (std::uint16_t q = 0; q < op.size(); ++q)
                    if (op[q] && op[q]->device == spine) {
                        r.lft[other][lid] = q;
                        break;
                    }
            }
        }
    }
    return r;
}

// The ftree idea on a 3-level tree (d-mod-k): towards destination d, sitting on port x of leaf L,
// every other leaf goes up through its up-port number x, and an aggregation switch outside L's
// pod goes up through its up-port number i, where i is L's place in its pod (the port of L on
// its aggregation switches); cores and L's aggregation switches go down. Full trees: every
// linear-shift phase is conflict-free.
Routing route_ftree_3level(const Topology& t) {
    Routing r = empty_tables(t);
    auto ports_towards = [&](std::uint32_t sw, bool up) {
        std::vector<std::uint16_t> out;
        const auto& ports = t.device(sw).ports;
        for (std::uint16_t q = 0; q < ports.size(); ++q)
            if (ports[q] && is_switch(t, ports[q]->device) && (t.device(ports[q]->device).level > t.device(sw).level) == up) out.push_back(q);
        return out;
    };
    std::vector<std::vector<std::uint16_t>> up(t.devices().size());
    // down[s]: leaf device -> the port of s that leads down to it.
    std::vector<std::unordered_map<std::uint32_t, std::uint16_t>> down(t.devices().size());
    for (auto s : t.switches()) up[s] = ports_towards(s, true);
    for (std::uint32_t level = 1; level <= 2; ++level)
        for (auto s : t.switches()) {
            if (t.device(s).level != level) continue;
            for (auto q : ports_towards(s, false)) {
                std::uint32_t below = t.device(s).ports[q]->device;
                if (t.device(below).level == 0) down[s].emplace(below, q);
                for (const auto& [leaf, unused] : down[below]) down[s].emplace(leaf, q);
            }
        }
    for (auto host : t.hosts()) {
        const std::uint32_t lid = t.device(host).lid;
        const PortRef at = *t.device(host).ports[0];
        const std::uint32_t leaf = at.device, x = at.port;
        if (up[leaf].empty()) continue;
        const std::uint32_t i = t.peer({leaf, up[leaf][0]})->port;   // L's place in its pod
        for (auto s : t.switches()) {
            if (s == leaf) {
                r.lft[s][lid] = static_cast<std::uint16_t>(x);
                continue;
            }
            auto d = down[s].find(leaf);
            if (d != down[s].end()) r.lft[s][lid] = d->second;
            else if (!up[s].empty()) r.lft[s][lid] = up[s][(t.device(s).level == 0 ? x : i) % up[s].size()];
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
    bool three_levels = std::any_of(topology.switches().begin(), topology.switches().end(),
                                    [&](auto s) { return topology.device(s).level >= 2; });
    Routing r = engine != RoutingEngine::ftree ? route_minimal(topology, engine, seed)
                : three_levels                 ? route_ftree_3level(topology)
                                               : route_ftree(topology);
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
        if (!is_switch(t, at)) throw RoutingError(describe() + ": delivered to the wrong host " + t.device(at).name, path.back().device, lid);
        std::uint16_t out = lid < r.lft[at].size() ? r.lft[at][lid] : no_port;
        if (out == no_port) throw RoutingError(describe() + ": unreachable, no LFT entry on " + t.device(at).name, at, lid);
        auto next = out < t.device(at).ports.size() ? t.device(at).ports[out] : std::nullopt;
        if (!next)
            throw RoutingError(describe() + ": LFT of " + t.device(at).name + " points to empty port " + std::to_string(ib_port(t.device(at), out)),
                               at, lid);
        path.push_back({at, out});
        at = next->device;
    }
    return path;
}

void check_all_pairs(const Topology& t, const Routing& r) {
    for (auto a : t.hosts())
        for (auto b : t.hosts())
            if (a != b) trace(t, r, a, b);
}

} // namespace evb::netsim
