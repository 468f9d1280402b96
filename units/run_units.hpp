// What the executors host, whatever the run does: a layout and the units of each rank. Event
// building (event_builder_units.hpp) and the micro-benchmarks (traffic_units.hpp) provide one.
#pragma once
#include "units/layout.hpp"
#include "core/memory_pool.hpp"
#include "units/unit.hpp"

#include <memory>
#include <vector>

namespace evb {

struct HostedUnit {
    UnitAddress address;
    std::unique_ptr<Unit> unit;
};

struct UnitsOfRank {
    std::uint32_t node = 0; // statistics row: the node of its RU or BU, N for an EM alone
    std::vector<std::unique_ptr<MemoryPool>> pools; // owned here, used by the units
    std::vector<HostedUnit> units;
    Picoseconds count_from{}; // --warmup: the statistics' window opens here
};

class RunUnits {
public:
    virtual ~RunUnits() = default;
    virtual const Layout& layout() const = 0;
    // The units of `rank`, their pools set up as `memory` says (NUMA node, huge pages).
    virtual UnitsOfRank units_of(std::uint32_t rank, const PoolMemory& memory) const = 0;
};

// Event building or the micro-benchmark that config.benchmark names.
std::unique_ptr<RunUnits> make_run_units(const UnitConfig& config);

} // namespace evb
