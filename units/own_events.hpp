// PULL without EM: a BU gives its free slots events of its own (EventStream: e = index + k B) and,
// with --on-failure continue, takes over part of a lost BU's events once every surviving RU has
// reported on that BU. The BU keeps its slots and builds; this part decides which event next.
#pragma once
#include "units/context.hpp"
#include "units/event_stream.hpp"
#include "units/message.hpp"
#include "core/time.hpp"

#include <cstdint>
#include <vector>

namespace evb {

class OwnEvents {
public:
    // What this part asks of the BU it feeds.
    class Builder {
    public:
        virtual bool slot_free(std::uint32_t slot) const = 0;
        // Build `event` in `slot` (re-assigned: a lost BU may have built it already).
        virtual void start_event(Context& ctx, std::uint32_t slot, std::uint64_t event, bool reassigned) = 0;
        virtual bool ru_lost(std::uint32_t ru) const = 0;

    protected:
        ~Builder() = default;
    };

    struct Shape {
        std::uint32_t self, builders, sources, slots;
        std::uint64_t events_limit; // --events (0: none)
        Picoseconds duration; // --duration (0: none)
    };
    OwnEvents(Builder& bu, const Shape& shape);

    // Every free slot gets its next event; past --duration, or once ended, only a re-assigned one
    // (it was under way at a lost BU).
    void fill(Context& ctx);
    // The run is interrupted: as past --duration.
    void end_now(Context& ctx);
    // Every event this BU will build has been given a slot, and no takeover is left to settle.
    bool all_given() const;
    // An RU's report on a lost BU (MessageType::takeover).
    void on_report(Context& ctx, const Message& msg);
    void builder_lost(Context& ctx, std::uint32_t bu);
    // An RU was lost: its report is no longer awaited.
    void ru_lost(Context& ctx);

private:
    struct Takeover {
        std::uint32_t bu = 0;
        bool known_lost = false; // this BU has learned of the loss itself
        bool settled = false;
        std::vector<bool> reported; // per RU
        std::uint64_t from_round = UINT64_MAX, asked_below = 0;
    };
    Takeover& takeover_of(std::uint32_t bu);
    bool lost(std::uint32_t bu) const;
    void settle(Context& ctx);

    Builder& bu_;
    Shape shape_;
    EventStream stream_;
    bool all_given_ = false;
    bool ended_now_ = false;
    std::vector<Takeover> takeovers_;
};

} // namespace evb
