// What one rank of a micro-benchmark hosts, as the layout places it (no EM): a TrafficSender
// where event building has its RU, with `in_flight` message buffers, and a TrafficReceiver where
// it has its BU, with 2 `in_flight` slots for every sender.
#pragma once
#include "units/fragment_format.hpp"
#include "units/run_units.hpp"
#include "scheduling/schedule.hpp"

namespace evb {

class TrafficBenchmark final : public RunUnits {
public:
    explicit TrafficBenchmark(const UnitConfig& config)
        : layout_(Layout::from_config(config)), sizer_(config),
          schedule_(make_schedule(config.scheduling, config.seed)), setup_{config, sizer_, *schedule_} {}
    TrafficBenchmark(const TrafficBenchmark&) = delete;
    TrafficBenchmark& operator=(const TrafficBenchmark&) = delete;
    const Layout& layout() const override { return layout_; }
    UnitsOfRank units_of(std::uint32_t rank, const PoolMemory& memory) const override;

private:
    Layout layout_;
    FragmentSizer sizer_;
    std::unique_ptr<Schedule> schedule_; // unused by the traffic units; UnitSetup carries one
    UnitSetup setup_;
};

} // namespace evb
