#include "scheduling/barrel_shift.hpp"

namespace evb {

void BarrelShift::order(std::uint32_t self, std::uint64_t /*round*/, std::span<std::uint32_t> out) const {
    auto n = static_cast<std::uint32_t>(out.size());
    for (std::uint32_t step = 0; step < n; ++step) out[step] = shifted_peer(self, step, n);
}

} // namespace evb
