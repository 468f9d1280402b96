#include "exec/steady_state.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace evb {

double student_t975(std::uint32_t dof) {
    static constexpr double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                       2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                       2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    if (dof == 0) throw std::invalid_argument("student_t975: no degree of freedom");
    if (dof <= std::size(table)) return table[dof - 1];
    return 1.96 + 2.5 / dof; // within 0.002 of the quantile above 30
}

SteadyState::SteadyState(SteadyRule rule, std::uint32_t builders) : rule_(rule), builders_(builders) {
    if (builders == 0) throw std::invalid_argument("SteadyState: no builder unit");
    if (rule.batches < 2 || rule.max_samples < 4 * rule.batches) throw std::invalid_argument("SteadyState: too few batches or samples");
    samples_.reserve(rule.max_samples + 1);
}

void SteadyState::add(Picoseconds at, std::span<const BuilderSample> builders) {
    if (builders.size() != builders_) throw std::invalid_argument("SteadyState::add: one sample per builder unit");
    if (!samples_.empty() && at <= samples_.back().at) throw std::invalid_argument("SteadyState::add: samples go forward in time");
    Sample s{at};
    for (const BuilderSample& b : builders) {
        s.bytes += b.bytes;
        s.without_event += b.events == 0;
    }
    samples_.push_back(s);
    per_bu_.insert(per_bu_.end(), builders.begin(), builders.end());
    if (samples_.size() > rule_.max_samples) thin();
}

// Keeps every other sample, the newest among them: the spacing doubles and stays even.
void SteadyState::thin() {
    const std::size_t n = samples_.size(), first = (n - 1) % 2;
    std::size_t kept = 0;
    for (std::size_t i = first; i < n; i += 2, ++kept) {
        samples_[kept] = samples_[i];
        std::copy_n(per_bu_.begin() + static_cast<std::ptrdiff_t>(i * builders_), builders_,
                    per_bu_.begin() + static_cast<std::ptrdiff_t>(kept * builders_));
    }
    samples_.resize(kept);
    per_bu_.resize(kept * builders_);
    ++thinned_;
}

Picoseconds SteadyState::next_due(Picoseconds interval) const {
    const Picoseconds spacing(interval.count() << thinned_);
    return samples_.empty() ? spacing : samples_.back().at + spacing;
}

double SteadyState::rate_gbps(std::size_t from, std::size_t to) const {
    const double seconds = (samples_[to].at - samples_[from].at).seconds();
    return static_cast<double>(samples_[to].bytes - samples_[from].bytes) * 8 / seconds / builders_ / 1e9;
}

SteadyState::Truncation SteadyState::truncation(std::size_t first) const {
    constexpr std::size_t group = 5;
    const std::size_t groups = (samples_.size() - 1 - first) / group;
    if (groups < 4) return {first, false};
    std::vector<double> z(groups);
    for (std::size_t j = 0; j < groups; ++j) z[j] = rate_gbps(first + j * group, first + (j + 1) * group);
    // MSER(d) = sum over j >= d of (z_j - mean_d)^2 / (groups - d)^2, from suffix sums.
    double sum = 0, squares = 0, best = INFINITY;
    std::size_t best_d = 0;
    for (std::size_t d = groups; d-- > 0;) {
        sum += z[d];
        squares += z[d] * z[d];
        const double k = static_cast<double>(groups - d);
        const double mser = (squares - sum * sum / k) / (k * k);
        // Searched up to the last quarter (below, a handful of groups make the statistic vanish):
        // a minimum past the middle says the rate still drifts (White's rule: the run is too short).
        if (d < groups - groups / 4 && mser <= best) {
            best = mser;
            best_d = d;
        }
    }
    return {first + best_d * group, best_d > groups / 2};
}

SteadyVerdict SteadyState::verdict() const {
    SteadyVerdict v;
    if (samples_.empty()) {
        v.why_not = "no sample yet";
        return v;
    }
    const Sample& last = samples_.back();
    v.until = last.at;
    std::size_t first = 0;
    while (first < samples_.size() && samples_[first].without_event) ++first;
    if (first == samples_.size()) {
        v.why_not = fmt::format("{} of {} BUs have built no event yet", last.without_event, builders_);
        v.idle_builders = v.short_builders = last.without_event;
        return v;
    }
    const std::size_t end = samples_.size() - 1;
    const Truncation cut = truncation(first);
    const std::size_t intervals = end - cut.start, per_batch = intervals / rule_.batches;
    if (per_batch == 0) {
        v.began = samples_[first].at;
        v.why_not = fmt::format("every BU has built an event since {:.6g} s: too short a window for {} batches yet", v.began.seconds(),
                                rule_.batches);
        return v;
    }
    const std::size_t begin = end - per_batch * rule_.batches; // the earliest remainder goes to the start-up
    v.began = samples_[begin].at;
    v.batches = rule_.batches;
    v.start_up_gbps = static_cast<double>(samples_[begin].bytes) * 8 / v.began.seconds() / builders_ / 1e9;
    v.mean_gbps = rate_gbps(begin, end);
    std::vector<double> x(rule_.batches);
    double squares = 0, lagged = 0;
    for (std::size_t b = 0; b < rule_.batches; ++b) {
        x[b] = rate_gbps(begin + b * per_batch, begin + (b + 1) * per_batch) - v.mean_gbps;
        squares += x[b] * x[b];
        if (b) lagged += x[b] * x[b - 1];
    }
    v.lag1 = squares > 0 ? lagged / squares : 0;
    v.half_width_gbps = student_t975(rule_.batches - 1) * std::sqrt(squares / (rule_.batches - 1) / rule_.batches);
    const double window_s = (v.until - v.began).seconds();
    v.slowest_gbps = INFINITY;
    for (std::uint32_t bu = 0; bu < builders_; ++bu) {
        const std::uint64_t events = events_at(end, bu) - events_at(begin, bu);
        v.idle_builders += events == 0;
        v.short_builders += events < rule_.min_events;
        const double gbps = static_cast<double>(bytes_at(end, bu) - bytes_at(begin, bu)) * 8 / window_s / 1e9;
        if (gbps < v.slowest_gbps) {
            v.slowest_gbps = gbps;
            v.slowest = bu;
        }
    }
    if (v.short_builders)
        v.why_not = fmt::format("{} of {} BUs built fewer than {} events in the window ({} none)", v.short_builders, builders_,
                                rule_.min_events, v.idle_builders);
    else if (cut.drifting)
        v.why_not = fmt::format("the rate still drifts: MSER puts the start-up's end at {:.6g} s, past the middle of the run since every "
                                "BU's first event",
                                samples_[cut.start].at.seconds());
    else if (v.lag1 > rule_.max_lag1)
        v.why_not =
            fmt::format("the batch means are correlated (lag-1 {:.2f} above {:g}): the batches are too short yet", v.lag1, rule_.max_lag1);
    else if (!(v.mean_gbps > 0) || v.half_width_gbps > rule_.bound * v.mean_gbps)
        v.why_not =
            fmt::format("the half-width is {:.2f} % of the rate, above {:g} %", 100 * v.half_width_gbps / v.mean_gbps, 100 * rule_.bound);
    v.steady = v.why_not.empty();
    return v;
}

} // namespace evb
