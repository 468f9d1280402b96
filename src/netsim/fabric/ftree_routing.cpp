#include "netsim/fabric/ftree_routing.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <set>

namespace evb::netsim {
namespace {

constexpr std::uint8_t no_hops = 0xFF;

// The order of OpenSM's switch table: keyed by GUIDs in network byte order compared as integers
// of the machine, so on a little-endian machine a GUID's last byte weighs most. Its tables on x86
// are the reference (the ibsim tests tell the orders apart once GUIDs cross a byte).
std::uint64_t opensm_guid_rank(std::uint64_t guid) { return __builtin_bswap64(guid); }

struct Cable {
    std::uint16_t port, remote_port; // port indices (IB port - 1 on switches)
    std::uint32_t up_routes = 0, down_routes = 0;
};

// Every cable from one switch to one neighbour, balanced as a unit first and per cable second.
struct PortGroup {
    std::uint32_t remote;
    bool to_switch;
    std::vector<Cable> cables; // in port order
    std::uint32_t up_routes = 0, down_routes = 0;
};

// The engine's index of a switch: its rank, then one position per rank below the roots.
using Tuple = std::array<std::uint8_t, 8>;
constexpr Tuple unindexed = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

struct Switch {
    std::uint32_t rank = UINT32_MAX; // 0: a root
    Tuple index = unindexed;
    std::vector<PortGroup> groups;
    std::vector<std::uint32_t> down, up; // into groups, in the engine's current (load) order
    bool leaf = false; // has hosts
    bool up_routes_changed = false;
    std::uint32_t min_down_routes = 0;
    std::vector<std::uint8_t> hops; // per LID, as far as this engine has routed
};

class Engine {
public:
    explicit Engine(const Topology& t) : t_(t), sw_(t.devices().size()) {}

    Routing run() {
        rank_from_roots();
        build_port_groups();
        index_switches();
        route_to_hosts();
        return std::move(r_);
    }

private:
    bool is_switch(std::uint32_t d) const { return t_.device(d).kind == DeviceKind::switch_; }

    // Roots are the switches of the top level; ranks grow by one per hop down.
    void rank_from_roots() {
        std::uint32_t top = 0;
        for (auto s : t_.switches()) top = std::max(top, t_.device(s).level);
        std::deque<std::uint32_t> queue;
        for (auto s : t_.switches())
            if (t_.device(s).level == top) {
                sw_[s].rank = 0;
                queue.push_back(s);
            }
        while (!queue.empty()) {
            std::uint32_t s = queue.front();
            queue.pop_front();
            for (const auto& p : t_.device(s).ports)
                if (p && is_switch(p->device) && sw_[p->device].rank > sw_[s].rank + 1) {
                    sw_[p->device].rank = sw_[s].rank + 1;
                    queue.push_back(p->device);
                }
        }
    }

    void build_port_groups() {
        for (auto s : t_.switches()) {
            Switch& me = sw_[s];
            const auto& ports = t_.device(s).ports;
            for (std::uint16_t p = 0; p < ports.size(); ++p) {
                if (!ports[p] || ports[p]->device == s) continue;
                const std::uint32_t remote = ports[p]->device;
                const bool to_switch = is_switch(remote);
                if (!to_switch) me.leaf = true;
                if (to_switch && sw_[remote].rank == me.rank) continue; // same rank: not routed through
                auto& list = !to_switch || sw_[remote].rank > me.rank ? me.down : me.up;
                auto g = std::find_if(list.begin(), list.end(), [&](auto i) { return me.groups[i].remote == remote; });
                if (g == list.end()) {
                    list.push_back(static_cast<std::uint32_t>(me.groups.size()));
                    me.groups.push_back({remote, to_switch, {}});
                    g = list.end() - 1;
                }
                me.groups[*g].cables.push_back({p, static_cast<std::uint16_t>(ports[p]->port)});
            }
            me.hops.assign(t_.max_lid() + 1, no_hops);
        }
        r_.lft.resize(t_.devices().size());
        for (auto s : t_.switches()) r_.lft[s].assign(t_.max_lid() + 1, no_port);
    }

    Tuple new_index(const Tuple& from, bool down) {
        Tuple next = from;
        const std::uint32_t position = down ? from[0] + 1u : from[0];
        next[0] = static_cast<std::uint8_t>(down ? from[0] + 1 : from[0] - 1);
        if (position >= next.size()) throw RoutingError("ftree: the fat tree is deeper than 8 ranks");
        for (std::uint32_t i = 0; i < 0xFF; ++i) {
            next[position] = static_cast<std::uint8_t>(i);
            if (!taken_.count(next)) return next;
        }
        throw RoutingError("ftree: more than 255 switches share one index position of the fat tree");
    }

    void sort_by_remote_index(Switch& me, std::vector<std::uint32_t>& list) {
        std::sort(list.begin(), list.end(), [&](auto a, auto b) { return index_of(me.groups[a]) < index_of(me.groups[b]); });
    }
    const Tuple& index_of(const PortGroup& g) const { return g.to_switch ? sw_[g.remote].index : unindexed; }

    // A breadth-first walk from the first leaf in the switch table's order gives every
    // switch its index; each switch's port groups are then ordered by their neighbours' indexes.
    void index_switches() {
        std::vector<std::uint32_t> by_guid = t_.switches();
        std::sort(by_guid.begin(), by_guid.end(),
                  [&](auto a, auto b) { return opensm_guid_rank(t_.device(a).guid) < opensm_guid_rank(t_.device(b).guid); });
        auto first_leaf = std::find_if(by_guid.begin(), by_guid.end(), [&](auto s) { return sw_[s].leaf; });
        if (first_leaf == by_guid.end()) return; // no hosts: nothing to route
        leaf_rank_ = sw_[*first_leaf].rank;
        Tuple first = unindexed;
        first[0] = static_cast<std::uint8_t>(leaf_rank_);
        for (std::uint32_t i = 1; i <= leaf_rank_ && i < first.size(); ++i) first[i] = 0;
        assign(*first_leaf, first);
        std::deque<std::uint32_t> queue{*first_leaf};
        while (!queue.empty()) {
            const std::uint32_t s = queue.front();
            queue.pop_front();
            Switch& me = sw_[s];
            for (bool down : {true, false}) {
                if (down ? me.rank >= leaf_rank_ : me.rank == 0) continue;
                auto& list = down ? me.down : me.up;
                for (auto g : list) {
                    const PortGroup& group = me.groups[g];
                    if (!group.to_switch || sw_[group.remote].index != unindexed) continue;
                    assign(group.remote, new_index(me.index, down));
                    queue.push_back(group.remote);
                }
                sort_by_remote_index(me, list);
            }
        }
        for (auto s : t_.switches())
            if (sw_[s].rank == leaf_rank_ && sw_[s].index != unindexed) leaves_.push_back(s);
        std::sort(leaves_.begin(), leaves_.end(), [&](auto a, auto b) { return sw_[a].index < sw_[b].index; });
        while (!leaves_.empty() && !sw_[leaves_.back()].leaf) leaves_.pop_back();
        leaves_.erase(leaves_.begin(), std::find_if(leaves_.begin(), leaves_.end(), [&](auto s) { return sw_[s].leaf; }));
    }
    void assign(std::uint32_t s, const Tuple& index) {
        sw_[s].index = index;
        taken_.insert(index);
    }

    // Leaf by leaf, host by host in port order; then as many dummy destinations as this leaf
    // lacks against the fullest leaf, which only move the counters, on their main path up to the
    // roots (on 3-level trees the aggregation switches' counters too).
    void route_to_hosts() {
        std::size_t most_hosts = 0;
        for (auto leaf : leaves_) most_hosts = std::max(most_hosts, host_groups(leaf));
        for (auto leaf : leaves_) {
            Switch& me = sw_[leaf];
            std::size_t routed = 0;
            for (auto g : me.down) {
                const PortGroup& group = me.groups[g];
                if (group.to_switch) continue;
                const std::uint32_t lid = t_.device(group.remote).lid;
                r_.lft[leaf][lid] = group.cables.front().port;
                me.hops[lid] = 1;
                down_by_going_up(leaf, UINT32_MAX, lid, true, true, 1);
                ++routed;
            }
            for (; routed < most_hosts; ++routed) down_by_going_up(leaf, UINT32_MAX, 0, false, true, 1);
        }
    }
    std::size_t host_groups(std::uint32_t leaf) const {
        const Switch& me = sw_[leaf];
        return static_cast<std::size_t>(std::count_if(me.down.begin(), me.down.end(), [&](auto g) { return !me.groups[g].to_switch; }));
    }

    static Cable& least_loaded(PortGroup& g, std::uint32_t Cable::*routes) {
        Cable* best = &g.cables.front();
        for (auto& c : g.cables)
            if (c.*routes < best->*routes) best = &c;
        return *best;
    }

    // Negative when `a` is to be preferred as the next hop up: fewer routes down through it, then
    // (as OpenSM compares) a neighbour not more loaded below, then the smaller GUID (OpenSM 3.3.23
    // breaks such ties towards the smaller GUID: the ibsim tests on 3-level trees tell the orders apart).
    int compare_load_down(const PortGroup& a, const PortGroup& b) const {
        const int routes = static_cast<int>(a.down_routes - b.down_routes);
        if (routes != 0) return routes > 0 ? 1 : -1;
        if (static_cast<int>(sw_[a.remote].min_down_routes - sw_[b.remote].min_down_routes) > 0) return 1;
        return t_.device(a.remote).guid > t_.device(b.remote).guid ? 1 : -1;
    }
    // Bubble sorts, as OpenSM's: stable, and they keep each switch's order from one call to the next.
    template <typename Before>
    static void bubble_sort(std::vector<std::uint32_t>& list, Before before) {
        for (std::size_t pass = 0, swapped = 1; swapped; ++pass) {
            swapped = 0;
            for (std::size_t j = 1; j + pass < list.size(); ++j)
                if (before(list[j], list[j - 1])) {
                    std::swap(list[j], list[j - 1]);
                    swapped = 1;
                }
        }
    }
    void recalculate_min_down_routes(Switch& s) {
        std::uint32_t least = 1u << 30;
        for (auto g : s.down) least = std::min(least, s.groups[g].down_routes);
        s.min_down_routes = least;
    }

    // Gives every switch below `s` (but not the one the route came up from) an upward route to
    // `s` for `lid`, through its least loaded cable. True when a route towards hosts was made.
    bool up_by_going_down(std::uint32_t s, std::uint32_t came_from, std::uint32_t lid, bool real, std::uint8_t hops) {
        Switch& me = sw_[s];
        if (me.down.empty()) return false;
        if (me.up_routes_changed) {
            bubble_sort(me.down, [&](auto a, auto b) { return me.groups[a].up_routes < me.groups[b].up_routes; });
            me.up_routes_changed = false;
        }
        bool created = false;
        for (auto g : me.down) {
            PortGroup& group = me.groups[g];
            if (!group.to_switch) {
                created = true;
                continue;
            }
            if (group.remote == came_from) continue;
            Cable& cable = least_loaded(group, &Cable::up_routes);
            Switch& below = sw_[group.remote];
            if (below.hops[lid] != no_hops && hops + 1 >= below.hops[lid]) continue;
            if (real) {
                r_.lft[group.remote][lid] = cable.remote_port;
                below.hops[lid] = static_cast<std::uint8_t>(hops + 1);
            }
            if (up_by_going_down(group.remote, UINT32_MAX, lid, real, static_cast<std::uint8_t>(hops + 1))) {
                created = true;
                ++cable.up_routes;
                ++group.up_routes;
                me.up_routes_changed = true;
            }
        }
        return created;
    }

    // From `s`, on the way up from the destination: routes the switches below `s` up to it, then
    // picks the least loaded upper switch for the main route down to `s` and gives every other
    // upper switch a secondary route down (which does not count in the balance).
    bool down_by_going_up(std::uint32_t s, std::uint32_t came_from, std::uint32_t lid, bool real, bool main, std::uint8_t hops) {
        bool created = up_by_going_down(s, came_from, lid, real, hops);
        Switch& me = sw_[s];
        if (me.rank == 0 || me.up.empty()) return created;
        bubble_sort(me.up, [&](auto a, auto b) { return compare_load_down(me.groups[a], me.groups[b]) < 0; });
        const auto next = static_cast<std::uint8_t>(hops + 1);
        if (main) {
            PortGroup& group = me.groups[me.up.front()];
            Cable& cable = least_loaded(group, &Cable::down_routes);
            ++group.down_routes;
            ++cable.down_routes;
            Switch& above = sw_[group.remote];
            if (group.down_routes == above.min_down_routes + 1) recalculate_min_down_routes(above);
            if (real && (r_.lft[group.remote][lid] == no_port || next < above.hops[lid])) {
                r_.lft[group.remote][lid] = cable.remote_port;
                above.hops[lid] = next;
                created |= down_by_going_up(group.remote, s, lid, real, main, next);
            } else if (!real) {
                created |= down_by_going_up(group.remote, s, lid, real, main, next);
            }
        }
        if (!real) return created;
        for (std::size_t i = main ? 1 : 0; i < me.up.size(); ++i) {
            PortGroup& group = me.groups[me.up[i]];
            Switch& above = sw_[group.remote];
            if (r_.lft[group.remote][lid] != no_port && next >= above.hops[lid]) continue;
            r_.lft[group.remote][lid] = least_loaded(group, &Cable::down_routes).remote_port;
            above.hops[lid] = next;
            created |= down_by_going_up(group.remote, s, lid, true, false, next);
        }
        return created;
    }

    const Topology& t_;
    std::vector<Switch> sw_; // per device; hosts' entries unused
    std::set<Tuple> taken_;
    std::uint32_t leaf_rank_ = 0;
    std::vector<std::uint32_t> leaves_; // in index order
    Routing r_;
};

} // namespace

Routing route_ftree(const Topology& topology) { return Engine(topology).run(); }

} // namespace evb::netsim
