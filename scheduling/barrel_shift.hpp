#pragma once
#include "scheduling/schedule.hpp"

namespace evb {

// The linear shifter's rule, for every schedule that shifts (barrel, barrel-sync's phases, a2a's
// windows, the shift-scan benchmark): at step k, unit `self` of n visits peer (self + k) mod n.
inline std::uint32_t shifted_peer(std::uint32_t self, std::uint64_t step, std::uint32_t n) {
    return static_cast<std::uint32_t>((std::uint64_t{self} + step % n) % n);
}

// Linear shifter: unit `self` visits peer (self + step) mod N at step `step`. In every step the
// N units target N distinct peers, so each phase is a permutation: no two BUs share an RU.
class BarrelShift final : public Schedule {
public:
    const char* name() const override { return "barrel"; }
    void order(std::uint32_t self, std::uint64_t round, std::span<std::uint32_t> out) const override;
    std::optional<std::uint32_t> peer_at(std::uint32_t self, std::uint64_t, std::uint32_t n, std::uint32_t step) const override {
        return shifted_peer(self, step, n);
    }
};

// Where credit `slot` of `credits` begins its walk with --barrel-start staggered: spread evenly
// over the N peers (slot * N / credits), so a BU's credits are not all at the same RU at once.
// Added to every unit's own start, so each step stays a permutation.
inline std::uint32_t staggered_start(std::uint32_t slot, std::uint32_t credits, std::uint32_t nodes) {
    return static_cast<std::uint32_t>(std::uint64_t{slot} * nodes / credits);
}

} // namespace evb
