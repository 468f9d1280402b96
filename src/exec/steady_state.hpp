// When a run's built rate is known (--until steady): what every BU has built since the start,
// sampled as the run goes, and the verdict those samples give.
//
// The start-up ends when every BU has built its first event and the rate stops drifting: MSER-5
// truncation (White 1997) of the per-BU built rate after that point picks where the steady window
// begins, and a truncation past the middle of that stretch means the rate still drifts. The rate over the window is then known by batch means: the window cut into `batches`
// equal batches, their mean rates' 95 % confidence half-width (Student's t) against `bound` of the
// window's rate. A window is never called steady while a BU has built fewer than `min_events`
// events in it. docs/simulator.md, "A steady-state verdict".
#pragma once
#include "core/time.hpp"
#include "units/node_stats.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace evb {

struct SteadyRule {
    double bound = 0.01; // the half-width, a fraction of the rate
    std::uint64_t min_events = 10; // events every BU builds in the window
    std::uint32_t batches = 20;
    double max_lag1 = 0.2; // the batch means' lag-1 autocorrelation above which they are not independent enough
    std::uint32_t max_samples = 1024; // beyond, every other sample is dropped (the spacing doubles)
};

// A BU's counts since the run's start.
struct BuilderSample {
    std::uint64_t events = 0, bytes = 0;
    static BuilderSample of(const NodeStats& s) { return {s.events_before_window + s.events_built, s.bytes_in_before_window + s.bytes_in}; }
};

struct SteadyVerdict {
    bool steady = false;
    std::string why_not; // when not steady: "12 of 64 BUs have built no event yet"
    Picoseconds began{}, until{}; // the window the figures below are of
    double start_up_gbps = 0; // per BU, built from the start to `began`
    double mean_gbps = 0, half_width_gbps = 0; // per BU over the window; the half-width at 95 %
    std::uint32_t batches = 0;
    double lag1 = 0; // the batch means' lag-1 autocorrelation
    std::uint32_t idle_builders = 0; // built no event in the window
    std::uint32_t short_builders = 0; // built fewer than min_events in it (the idle ones included)
    std::uint32_t slowest = 0; // the BU (index) that built least in the window; its node once the layout is known (in_nodes)
    double slowest_gbps = 0;
};

class SteadyState {
public:
    SteadyState(SteadyRule rule, std::uint32_t builders);

    // Every BU's counts at `at`, later than the last sample's.
    void add(Picoseconds at, std::span<const BuilderSample> builders);
    // Where the next sample is due, at `interval` spacing from the last (doubled by each thinning).
    Picoseconds next_due(Picoseconds interval) const;
    SteadyVerdict verdict() const;
    const SteadyRule& rule() const { return rule_; }

private:
    struct Sample {
        Picoseconds at;
        std::uint64_t bytes = 0; // over every BU
        std::uint32_t without_event = 0; // BUs with no event yet
    };
    void thin();
    std::uint64_t bytes_at(std::size_t sample, std::uint32_t bu) const { return per_bu_[sample * builders_ + bu].bytes; }
    std::uint64_t events_at(std::size_t sample, std::uint32_t bu) const { return per_bu_[sample * builders_ + bu].events; }
    // The sample the steady window starts at, from `first` (every BU has an event): MSER-5, and
    // whether its minimum lies past the middle (the rate still drifts).
    struct Truncation {
        std::size_t start;
        bool drifting;
    };
    Truncation truncation(std::size_t first) const;
    double rate_gbps(std::size_t from, std::size_t to) const; // per BU

    SteadyRule rule_;
    std::uint32_t builders_;
    std::vector<Sample> samples_;
    std::vector<BuilderSample> per_bu_; // samples_.size() x builders_
    std::uint32_t thinned_ = 0;
};

// Student's t at 97.5 % for `dof` degrees of freedom (the 95 % two-sided interval).
double student_t975(std::uint32_t dof);

} // namespace evb
