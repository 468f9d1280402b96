// PULL without EM: the events one BU builds, in increasing id. Its own class e = index + k B; and
// after a BU d is lost (--on-failure continue), once every surviving RU has said below which
// round it had delivered d's class (K0) and up to which round d had asked it (H), the rounds
// k >= K0 of d's class with (k - K0) mod L == its position among the L survivors. Rounds below H
// d may have built: they are re-assigned (built again, counted as re-built); rounds from H on are
// new events. Every survivor applies the same rule to the same reports, so each event has one
// builder.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace evb {

class EventStream {
public:
    // events_limit: --events (0: none).
    EventStream(std::uint32_t index, std::uint32_t bus, std::uint64_t events_limit);

    struct Next {
        std::uint64_t event;
        bool reassigned;
    };
    std::optional<Next> peek() const; // nullopt: nothing below the events limit is left
    void pop();
    void take_over(std::uint32_t lost, std::uint64_t from_round, std::uint64_t asked_below, std::uint32_t position,
                   std::uint32_t survivors);
    // Events of `lost`'s class below `round` (within the events limit): what it built before.
    std::uint64_t events_below(std::uint32_t lost, std::uint64_t round) const;

private:
    struct Stream {
        std::uint32_t bu;
        std::uint64_t round; // next round of this stream
        std::uint64_t step; // rounds between two of this BU's
        std::uint64_t asked_below; // rounds below: re-assigned
    };
    std::uint64_t event_of(const Stream& s) const { return s.bu + s.round * bus_; }
    std::optional<std::size_t> smallest() const;

    std::uint32_t bus_;
    std::uint64_t limit_;
    std::vector<Stream> streams_; // its own first
};

} // namespace evb
