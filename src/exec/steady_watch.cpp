#include "exec/steady_watch.hpp"

namespace evb {

SteadyRule steady_rule(const Config& c) { return SteadyRule{.bound = c.steady_bound_percent / 100, .min_events = c.steady_events}; }

std::vector<std::uint32_t> builder_ranks(const Layout& layout) {
    std::vector<std::uint32_t> ranks;
    for (std::uint32_t r = 0; r < layout.ranks(); ++r)
        if (const auto bu = layout.units_on(r).builder) {
            if (*bu >= ranks.size()) ranks.resize(*bu + 1);
            ranks[*bu] = r;
        }
    return ranks;
}

SteadyVerdict in_nodes(SteadyVerdict v, const Layout& layout) {
    const std::vector<std::uint32_t> ranks = builder_ranks(layout);
    if (v.slowest < ranks.size()) v.slowest = layout.node_of(ranks[v.slowest]);
    return v;
}

SteadyWatch::SteadyWatch(const Config& c, const Layout& layout, const std::vector<std::unique_ptr<Node>>& nodes)
    : layout_(layout), nodes_(nodes), builder_ranks_(builder_ranks(layout)),
      state_(steady_rule(c), static_cast<std::uint32_t>(builder_ranks_.size())), samples_(builder_ranks_.size()) {}

bool SteadyWatch::sample(Picoseconds at) {
    for (std::size_t b = 0; b < builder_ranks_.size(); ++b) samples_[b] = BuilderSample::of(nodes_.at(builder_ranks_[b])->stats());
    state_.add(at, samples_);
    return reached_ = state_.verdict().steady;
}

} // namespace evb
