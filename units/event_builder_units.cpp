#include "units/event_builder_units.hpp"

#include "units/builder_unit.hpp"
#include "units/event_manager.hpp"
#include "units/readout_unit.hpp"

namespace evb {

UnitsOfRank make_event_builder_units(const UnitSetup& setup, const Layout& layout, std::uint32_t rank, const PoolMemory& memory) {
    const UnitConfig& c = setup.config;
    RankUnits placed = layout.units_on(rank);
    UnitsOfRank r;
    r.node = layout.node_of(rank);
    r.count_from = c.warmup;
    const std::uint64_t stride = c.fragment_stride();
    // Started in this order, as before: EM, RU, BU.
    if (placed.manager) r.units.push_back({{Role::manager, 0}, std::make_unique<EventManager>(setup)});
    if (placed.readout) {
        // The RU's readout buffer: m B c fragments (eq. 3.1), loaned one per write.
        r.pools.push_back(std::make_unique<MemoryPool>(stride, static_cast<std::uint32_t>(c.ru_buffer_fragments()), memory));
        r.units.push_back({{Role::readout, *placed.readout}, std::make_unique<ReadoutUnit>(setup, *placed.readout, *r.pools.back())});
    }
    if (placed.builder) {
        // m c slots of R fragments each.
        r.pools.push_back(std::make_unique<MemoryPool>(stride * c.ru_count(), static_cast<std::uint32_t>(c.bu_slots()), memory));
        r.units.push_back({{Role::builder, *placed.builder}, std::make_unique<BuilderUnit>(setup, *placed.builder, *r.pools.back())});
    }
    return r;
}

} // namespace evb
