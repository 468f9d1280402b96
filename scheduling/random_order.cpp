#include "scheduling/random_order.hpp"

#include "core/hash.hpp"

#include <utility>

namespace evb {

void RandomOrder::order(std::uint32_t self, std::uint64_t round, std::span<std::uint32_t> out) const {
    auto n = static_cast<std::uint32_t>(out.size());
    for (std::uint32_t i = 0; i < n; ++i) out[i] = i;
    std::uint64_t state = mix64(seed_, self, round);
    for (std::uint32_t i = n; i > 1; --i) { // Fisher-Yates
        state = mix64(state);
        auto j = static_cast<std::uint32_t>(state % i);
        std::swap(out[i - 1], out[j]);
    }
}

} // namespace evb
