#include "units/class_delivery.hpp"

#include <algorithm>

namespace evb {

void ClassDelivery::asked(std::uint32_t cls, std::uint64_t round) {
    auto& c = classes_[cls];
    c.asked_below = std::max(c.asked_below, round + 1);
}

void ClassDelivery::written(std::uint32_t cls, std::uint64_t round) {
    auto& c = classes_[cls];
    if (round < c.below) return;
    if (round > c.below) {
        c.ahead.insert(round);
        return;
    }
    ++c.below;
    for (auto it = c.ahead.begin(); it != c.ahead.end() && *it == c.below; it = c.ahead.erase(it)) ++c.below;
}

} // namespace evb
