#include "exec/run_result.hpp"

#include "core/interrupt.hpp"
#include "units/layout.hpp"

#include <algorithm>

namespace evb {

RunResult make_result(const Config& config) {
    RunResult r;
    r.nodes.resize(config.nodes);
    for (std::uint32_t i = 0; i < config.nodes; ++i) r.nodes[i].node = i;
    r.manager.node = config.nodes;
    r.window_start = config.warmup; // each node counts from then on (Node::set_now)
    return r;
}

StartUpBuilders start_up_builders(const Config& c, const RunResult& r) {
    StartUpBuilders b;
    if (c.is_micro_benchmark()) return b;
    const Layout layout = Layout::from_config(c);
    const std::vector<NodeLoss> losses = r.system().losses;
    for (std::uint32_t rank = 0; rank < layout.ranks(); ++rank) {
        const std::uint32_t node = layout.node_of(rank);
        if (!layout.units_on(rank).builder || node >= r.nodes.size()) continue;
        if (std::ranges::any_of(losses, [rank](const NodeLoss& l) { return l.rank == rank; })) continue;
        const NodeStats& s = r.nodes[node];
        b.idle += s.events_built == 0;
        b.first_in_window += s.events_built > 0 && s.events_before_window == 0 && !c.events; // --events counts every one
    }
    return b;
}

void RunResult::add(const NodeStats& s) {
    // The window of every count: the earliest any rank counted from (a rank that ended within the
    // warm-up counted from the start).
    window_start = ranks_added_++ ? std::min(window_start, s.counted_from) : s.counted_from;
    if (s.node < nodes.size())
        nodes[s.node].merge(s);
    else
        manager.merge(s);
}

int RunResult::exit_code() const {
    NodeStats sum = system();
    if (failure || sum.errors.total()) return 1;
    if (sum.fragments_lost) return 3;
    return interrupted ? interrupted_exit_code(interrupted) : 0;
}

NodeStats RunResult::system() const {
    NodeStats sum = manager;
    for (const auto& n : nodes) sum.merge(n);
    return sum;
}

NodeStats RunResult::rated(std::size_t node) const {
    NodeStats s = nodes[node];
    if (node < link_bytes.size()) {
        s.bytes_in = link_bytes[node].rx;
        s.bytes_out = link_bytes[node].tx;
    } else {
        s.bytes_in = s.network_bytes_in();
        s.bytes_out = s.network_bytes_out();
    }
    s.bytes_in_local = s.bytes_out_local = 0;
    return s;
}

NodeStats RunResult::rated_system() const {
    NodeStats sum = system();
    if (link_bytes.empty()) {
        sum.bytes_in = sum.network_bytes_in();
        sum.bytes_out = sum.network_bytes_out();
    } else {
        sum.bytes_in = sum.bytes_out = 0;
        for (const auto& l : link_bytes) {
            sum.bytes_in += l.rx;
            sum.bytes_out += l.tx;
        }
    }
    sum.bytes_in_local = sum.bytes_out_local = 0;
    return sum;
}

Picoseconds RunResult::window() const {
    auto last = system().last_build;
    Picoseconds end = last > Picoseconds(0) && !cut ? last : elapsed;
    return end > window_start ? end - window_start : Picoseconds(0);
}

Picoseconds RunResult::byte_window() const {
    if (!bytes_span) return window();
    return bytes_span->to > bytes_span->from ? bytes_span->to - bytes_span->from : Picoseconds(0);
}

} // namespace evb
