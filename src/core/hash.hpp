// Cheap, well-mixed 64-bit hashing (splitmix64 finaliser) used for deterministic per-event draws.
#pragma once
#include <cstdint>

namespace evb {

constexpr std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
constexpr std::uint64_t mix64(std::uint64_t a, std::uint64_t b) { return mix64(a ^ mix64(b)); }
constexpr std::uint64_t mix64(std::uint64_t a, std::uint64_t b, std::uint64_t c) { return mix64(a, mix64(b, c)); }
// Uniform in [0, 1) from a hash.
constexpr double unit_interval(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

} // namespace evb
