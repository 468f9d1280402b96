// What one rank of the event builder hosts, as the layout places it: its RU (with the readout
// buffer of eq. 3.1), its BU (with c slots of N fragments), the EM. The executor hosts whatever
// list it is given; a FilterUnit or a micro-benchmark brings its own factory like this one.
#pragma once
#include "units/run_units.hpp"
#include "scheduling/schedule.hpp"

#include <memory>
#include <vector>

namespace evb {

UnitsOfRank make_event_builder_units(const UnitSetup& setup, const Layout& layout, std::uint32_t rank, const PoolMemory& memory);

// The run's shared, pure helpers (fragment sizes, visiting order), built once per process, and
// the units of any rank made from them.
class EventBuilder final : public RunUnits {
public:
    explicit EventBuilder(const UnitConfig& config)
        : layout_(Layout::from_config(config)), sizer_(config),
          schedule_(make_schedule(config.scheduling, config.seed)), setup_{config, sizer_, *schedule_} {}
    EventBuilder(const EventBuilder&) = delete;
    EventBuilder& operator=(const EventBuilder&) = delete;
    const Layout& layout() const override { return layout_; }
    UnitsOfRank units_of(std::uint32_t rank, const PoolMemory& memory) const override {
        return make_event_builder_units(setup_, layout_, rank, memory);
    }

private:
    Layout layout_;
    FragmentSizer sizer_;
    std::unique_ptr<Schedule> schedule_;
    UnitSetup setup_;
};

} // namespace evb
