// The order in which a unit visits its peers: a BU visiting RUs for one event (PULL), or an RU
// visiting BUs for one sweep (PUSH). Pure functions of (self, round): easy to test and replay.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

namespace evb {

// barrel_sync: the barrel shift's order with an in-band barrier per phase (units/phase_barrier.hpp);
// a2a: the time-window linear shifter (thesis 3.2.3; its windows in time_windows.hpp).
enum class Scheduling { barrel_shift, random, barrel_sync, a2a };
// Where each credit's barrel walk begins: at the unit's own peer (all credits in step) or
// staggered over the peers (barrel_shift.hpp).
enum class BarrelStart { own, staggered };

class Schedule {
public:
    virtual ~Schedule() = default;
    virtual const char* name() const = 0;
    // Writes a permutation of 0..out.size()-1: the visiting order of unit `self` in `round`.
    virtual void order(std::uint32_t self, std::uint64_t round, std::span<std::uint32_t> out) const = 0;
    // Step `step` of that order among n peers, where it has a closed form (the barrel shift), so
    // a unit need not keep N entries per event; nullopt where the whole order must be drawn.
    virtual std::optional<std::uint32_t> peer_at(std::uint32_t /*self*/, std::uint64_t /*round*/, std::uint32_t /*n*/,
                                                 std::uint32_t /*step*/) const {
        return std::nullopt;
    }
};

std::unique_ptr<Schedule> make_schedule(Scheduling kind, std::uint64_t seed);

} // namespace evb
