#include "units/traffic_units.hpp"

#include "units/event_builder_units.hpp"
#include "units/traffic_receiver.hpp"
#include "units/traffic_sender.hpp"

namespace evb {

UnitsOfRank TrafficBenchmark::units_of(std::uint32_t rank, const PoolMemory& memory) const {
    const UnitConfig& c = setup_.config;
    RankUnits placed = layout_.units_on(rank);
    UnitsOfRank r;
    r.node = placed.readout ? *placed.readout : *placed.builder;
    r.count_from = c.warmup;
    const std::uint64_t stride = c.fragment_stride();
    if (placed.readout) {
        r.pools.push_back(std::make_unique<MemoryPool>(stride, c.in_flight, memory));
        r.units.push_back({{Role::readout, *placed.readout}, std::make_unique<TrafficSender>(setup_, *placed.readout, *r.pools.back())});
    }
    if (placed.builder) {
        r.pools.push_back(std::make_unique<MemoryPool>(stride, c.receive_slots() * c.nodes, memory));
        r.units.push_back({{Role::builder, *placed.builder}, std::make_unique<TrafficReceiver>(setup_, *placed.builder, *r.pools.back())});
    }
    return r;
}

std::unique_ptr<RunUnits> make_run_units(const UnitConfig& config) {
    if (config.is_micro_benchmark()) return std::make_unique<TrafficBenchmark>(config);
    return std::make_unique<EventBuilder>(config);
}

} // namespace evb
