#pragma once
#include "scheduling/schedule.hpp"

namespace evb {

// A seeded random permutation per (self, round): the DAQPIPE "random shifter", useful to measure
// what a network without non-blocking behaviour loses. Same seed, same orders.
class RandomOrder final : public Schedule {
public:
    explicit RandomOrder(std::uint64_t seed) : seed_(seed) {}
    const char* name() const override { return "random"; }
    void order(std::uint32_t self, std::uint64_t round, std::span<std::uint32_t> out) const override;

private:
    std::uint64_t seed_;
};

} // namespace evb
