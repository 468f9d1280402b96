// --until steady across the ranks of a distributed run, at rank 0. Every rank sends its counts
// once a period, stamped with the period's number (its clock counts from the common start, so a
// period is the same stretch of time on every rank); rank 0 assembles, for each period, one
// sample of every BU and hands it to SteadyState. A record is a peer's word: one that goes back
// in time or in its counts, or stamps a period far beyond rank 0's clock, is refused.
#pragma once
#include "exec/progress_counts.hpp"
#include "exec/run_config.hpp"
#include "exec/steady_state.hpp"
#include "exec/steady_watch.hpp"
#include "units/layout.hpp"

#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace evb {

class SteadyRanks {
public:
    SteadyRanks(const Config& c, const Layout& layout, Picoseconds period);
    // Rank `rank`'s counts at the end of period `period`, rank 0's clock at `now`: why the
    // record breaks the protocol, or nothing.
    std::optional<std::string> take(std::uint32_t rank, std::uint64_t period, const ProgressCounts& counts, Picoseconds now);
    bool reached() const { return reached_; }
    SteadyVerdict verdict() const { return in_nodes(state_.verdict(), layout_); }

private:
    struct Record {
        std::uint64_t period;
        BuilderSample sample;
    };
    void assemble();

    const Layout& layout_;
    const Picoseconds period_;
    std::vector<std::optional<std::uint32_t>> builder_of_rank_;
    std::vector<std::deque<Record>> records_; // per BU, oldest first
    std::vector<Record> last_; // per BU, the latest record taken
    SteadyState state_;
    std::vector<BuilderSample> samples_;
    std::uint64_t next_period_ = 1; // the first period not yet assembled
    bool reached_ = false;
};

} // namespace evb
