#include "exec/steady_ranks.hpp"

#include "exec/steady_watch.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace evb {
namespace {

// A rank's clock may run ahead of rank 0's by its start's delay; a record stamped further ahead
// than this is no clock's.
constexpr Picoseconds clock_slack = Picoseconds::from_seconds(1);
// Records a BU may have waiting for the slowest rank's; beyond, its oldest go (a sample then
// takes a later record).
constexpr std::size_t max_waiting = 1024;

} // namespace

SteadyRanks::SteadyRanks(const Config& c, const Layout& layout, Picoseconds period)
    : layout_(layout), period_(period), builder_of_rank_(layout.ranks()), records_(builder_ranks(layout).size()), last_(records_.size()),
      state_(steady_rule(c), static_cast<std::uint32_t>(records_.size())), samples_(records_.size()) {
    if (period <= Picoseconds(0)) throw std::invalid_argument("SteadyRanks: the period must be positive");
    for (std::uint32_t r = 0; r < layout.ranks(); ++r) builder_of_rank_[r] = layout.units_on(r).builder;
}

std::optional<std::string> SteadyRanks::take(std::uint32_t rank, std::uint64_t period, const ProgressCounts& counts, Picoseconds now) {
    if (rank >= builder_of_rank_.size() || !builder_of_rank_[rank]) return std::nullopt; // no BU: its records are for the lines only
    const std::uint32_t bu = *builder_of_rank_[rank];
    const Record& last = last_[bu];
    const BuilderSample sample{counts.events, counts.built_bytes};
    if (period <= last.period) return fmt::format("it sent a progress record for period {} after one for period {}", period, last.period);
    const std::uint64_t latest = static_cast<std::uint64_t>((now + clock_slack).count() / period_.count());
    if (period > latest)
        return fmt::format("it sent a progress record for period {} of {:g} s while rank 0's clock is in period {}", period,
                           period_.seconds(), now.count() / period_.count());
    // The verdict adds every BU's bytes: a count no sum of them can hold is no count.
    if (sample.bytes > UINT64_MAX / records_.size())
        return fmt::format("its progress record for period {} counts {} bytes built, more than {} BUs' counts can add up to", period,
                           sample.bytes, records_.size());
    if (sample.events < last.sample.events || sample.bytes < last.sample.bytes)
        return fmt::format("its progress record for period {} counts fewer events or bytes than the one before", period);
    last_[bu] = {period, sample};
    if (reached_) return std::nullopt; // the verdict is given: the drain after it is no part of it
    records_[bu].push_back(last_[bu]);
    if (records_[bu].size() > max_waiting) records_[bu].pop_front();
    assemble();
    return std::nullopt;
}

// Each period every BU has a record for (at or after it) becomes one sample, the earliest such
// record of each BU standing for the period's end.
void SteadyRanks::assemble() {
    for (;;) {
        std::uint64_t period = UINT64_MAX;
        for (auto& waiting : records_) {
            while (!waiting.empty() && waiting.front().period < next_period_) waiting.pop_front();
            if (waiting.empty()) return;
            period = std::min(period, waiting.front().period);
        }
        for (std::size_t b = 0; b < records_.size(); ++b) samples_[b] = records_[b].front().sample;
        next_period_ = period + 1;
        const Picoseconds at(static_cast<std::int64_t>(period) * period_.count());
        if (at < state_.next_due(period_)) continue; // thinned: every other period is enough
        state_.add(at, samples_);
        reached_ = state_.verdict().steady;
    }
}

} // namespace evb
