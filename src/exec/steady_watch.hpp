// --until steady where one loop sees every BU's node (the simulator, an in-process run): it samples
// their counts on the run's clock and says when the built rate is known (exec/steady_state.hpp).
#pragma once
#include "exec/node.hpp"
#include "exec/run_config.hpp"
#include "exec/steady_state.hpp"
#include "units/layout.hpp"

#include <memory>
#include <vector>

namespace evb {

// The rule --steady-bound and --steady-events give.
SteadyRule steady_rule(const Config& c);

// The rank of each BU, by BU index.
std::vector<std::uint32_t> builder_ranks(const Layout& layout);
// The verdict with its slowest BU as the node it runs on (the table's row: in a split layout BU j
// is node R + j).
SteadyVerdict in_nodes(SteadyVerdict v, const Layout& layout);

class SteadyWatch {
public:
    // `nodes`: one per rank, as the layout numbers them.
    SteadyWatch(const Config& c, const Layout& layout, const std::vector<std::unique_ptr<Node>>& nodes);
    // Samples every BU at `at` (later than the last sample); whether the rate is now known.
    bool sample(Picoseconds at);
    // When the next sample is due, at `spacing` from the last (doubled by each thinning).
    Picoseconds next_due(Picoseconds spacing) const { return state_.next_due(spacing); }
    bool reached() const { return reached_; }
    SteadyVerdict verdict() const { return in_nodes(state_.verdict(), layout_); }

private:
    const Layout& layout_;
    const std::vector<std::unique_ptr<Node>>& nodes_;
    const std::vector<std::uint32_t> builder_ranks_;
    SteadyState state_;
    std::vector<BuilderSample> samples_;
    bool reached_ = false;
};

} // namespace evb
