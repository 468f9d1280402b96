#include "scheduling/schedule.hpp"

#include "scheduling/barrel_shift.hpp"
#include "scheduling/random_order.hpp"

namespace evb {

std::unique_ptr<Schedule> make_schedule(Scheduling kind, std::uint64_t seed) {
    switch (kind) {
    case Scheduling::barrel_shift:
    case Scheduling::barrel_sync:
    case Scheduling::a2a: return std::make_unique<BarrelShift>();
    case Scheduling::random: return std::make_unique<RandomOrder>(seed);
    }
    return nullptr;
}

} // namespace evb
