#pragma once
#include "schedule.hpp"

namespace evb {

// Linear shifter: unit `self` visits peer (self + step) mod N at step `step`. In every step the
// N units target N distinct peers, so each phase is a permutation: no two BUs share an RU.
class BarrelShift final : public Schedule {
public:
    const char* name() const override { return "barrel"; }
    void order(std::uint32_t self, std::uint64_t round, std::span<std::uint32_t> out) const override;
};

} // namespace evb
