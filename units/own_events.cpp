#include "units/own_events.hpp"

#include <algorithm>

namespace evb {

OwnEvents::OwnEvents(Builder& bu, const Shape& shape) : bu_(bu), shape_(shape), stream_(shape.self, shape.builders, shape.events_limit) {}

void OwnEvents::fill(Context& ctx) {
    all_given_ = false;
    for (std::uint32_t slot = 0; slot < shape_.slots; ++slot) {
        if (!bu_.slot_free(slot)) continue;
        const auto next = stream_.peek();
        const bool out_of_time = ended_now_ || (shape_.duration > Picoseconds(0) && ctx.now() >= shape_.duration);
        if (!next || (out_of_time && !next->reassigned)) {
            all_given_ = true;
            break;
        }
        stream_.pop();
        if (next->reassigned)
            ++ctx.stats().events_reassigned;
        else
            ++ctx.stats().events_assigned;
        bu_.start_event(ctx, slot, next->event, next->reassigned);
    }
}

void OwnEvents::end_now(Context& ctx) {
    if (ended_now_) return;
    ended_now_ = true;
    fill(ctx); // with no slot free, says it is done
}

bool OwnEvents::all_given() const {
    for (const auto& t : takeovers_)
        if (!t.settled) return false; // survivors may have work still to learn of
    return all_given_;
}

bool OwnEvents::lost(std::uint32_t bu) const {
    return std::ranges::any_of(takeovers_, [bu](const Takeover& t) { return t.bu == bu; });
}

OwnEvents::Takeover& OwnEvents::takeover_of(std::uint32_t bu) {
    for (auto& t : takeovers_)
        if (t.bu == bu) return t;
    Takeover t;
    t.bu = bu;
    t.reported.assign(shape_.sources, false);
    takeovers_.push_back(std::move(t));
    return takeovers_.back();
}

void OwnEvents::on_report(Context& ctx, const Message& msg) {
    if (msg.from_index >= shape_.sources || msg.peer_index >= shape_.builders || msg.peer_index == shape_.self) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    Takeover& t = takeover_of(msg.peer_index);
    if (t.settled || t.reported[msg.from_index]) return;
    t.reported[msg.from_index] = true;
    t.from_round = std::min(t.from_round, msg.event);
    t.asked_below = std::max(t.asked_below, msg.count);
    settle(ctx);
}

void OwnEvents::builder_lost(Context& ctx, std::uint32_t bu) {
    takeover_of(bu).known_lost = true;
    settle(ctx);
}

void OwnEvents::ru_lost(Context& ctx) {
    if (!takeovers_.empty()) settle(ctx);
}

// A takeover is settled when this BU knows of the loss and every RU not lost has reported: all
// survivors then compute the same rounds from the same reports.
void OwnEvents::settle(Context& ctx) {
    bool any = false;
    for (auto& t : takeovers_) {
        if (t.settled || !t.known_lost) continue;
        bool all = true;
        for (std::uint32_t ru = 0; ru < shape_.sources && all; ++ru) all = t.reported[ru] || bu_.ru_lost(ru);
        if (!all) continue;
        t.settled = true;
        if (t.from_round == UINT64_MAX) t.from_round = 0; // no RU left to report: take over everything
        std::uint32_t position = 0, survivors = 0;
        for (std::uint32_t bu = 0; bu < shape_.builders; ++bu) {
            if (lost(bu)) continue;
            if (bu == shape_.self) position = survivors;
            ++survivors;
        }
        stream_.take_over(t.bu, t.from_round, t.asked_below, position, survivors);
        // What the lost BU had from every RU counts as built by it, once (by the first survivor).
        if (position == 0) ctx.stats().events_built_by_lost += stream_.events_below(t.bu, t.from_round);
        ctx.log().info("BU {}: takes over BU {}'s events from round {} (asked below {}), position {} of {}", shape_.self, t.bu,
                       t.from_round, t.asked_below, position, survivors);
        any = true;
    }
    if (any) fill(ctx);
}

} // namespace evb
