#include "units/event_stream.hpp"

namespace evb {

EventStream::EventStream(std::uint32_t index, std::uint32_t bus, std::uint64_t events_limit)
    : bus_(bus), limit_(events_limit), streams_{{index, 0, 1, 0}} {}

std::optional<std::size_t> EventStream::smallest() const {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
        std::uint64_t e = event_of(streams_[i]);
        if (limit_ && e >= limit_) continue;
        if (!best || e < event_of(streams_[*best])) best = i;
    }
    return best;
}

std::optional<EventStream::Next> EventStream::peek() const {
    auto i = smallest();
    if (!i) return std::nullopt;
    const Stream& s = streams_[*i];
    return Next{event_of(s), s.round < s.asked_below};
}

void EventStream::pop() {
    if (auto i = smallest()) streams_[*i].round += streams_[*i].step;
}

void EventStream::take_over(std::uint32_t lost, std::uint64_t from_round, std::uint64_t asked_below, std::uint32_t position,
                            std::uint32_t survivors) {
    streams_.push_back({lost, from_round + position, survivors, asked_below});
}

std::uint64_t EventStream::events_below(std::uint32_t lost, std::uint64_t round) const {
    if (!limit_) return round;
    std::uint64_t in_limit = limit_ > lost ? (limit_ - lost + bus_ - 1) / bus_ : 0; // rounds k with lost + k B < limit
    return round < in_limit ? round : in_limit;
}

} // namespace evb
