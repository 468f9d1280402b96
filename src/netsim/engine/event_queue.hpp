// The simulator's time-ordered event queue: small plain events, taken out by time with ties
// broken by insertion order, so a run is deterministic bit for bit. An event scheduled before the
// last one taken out would make time go backwards: a broken invariant of the model, so the
// process aborts with one line saying so (as SST's TimeVortex and htsim's EventList do).
//
// A timing wheel of 1.024 ns slots over 4.2 us, with a radix heap for the events beyond: nearly
// every event of a fabric is a packet's end or head a few hundred ns ahead. A slot's events are
// appended as they come and sorted once, when it becomes the current one: an event is written
// once and moved once, where the radix heap alone moved each down through several buckets.
#pragma once
#include "radix_heap.hpp"

#include <cstdio>
#include <cstdlib>

namespace evb::netsim {

class EventQueue {
public:
    EventQueue() : slots_(slot_count) {}

    void push(std::int64_t time, std::uint8_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
        if (time < now_) time_went_backwards(time, kind);
        const SimEvent e{time, next_seq_++, a, b, c, kind};
        ++size_;
        peeked_ = nullptr;
        if (time >= start_ + horizon) {
            far_.push(e);
        } else if (time < start_ + slot_ps) {   // the current slot: in order (e is the latest of its time)
            auto at = std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(head_), current_.end(), time,
                                       [](std::int64_t t, const SimEvent& x) { return t < x.time; });
            current_.insert(at, e);
        } else {
            slots_[slot_of(time)].push_back(e);
            ++in_slots_;
        }
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // The earliest event; the queue must not be empty. Looking does not move events (pop does):
    // events may still be scheduled between now and the earliest.
    const SimEvent& top() {
        if (head_ < current_.size()) return current_[head_];
        if (!peeked_) peeked_ = &earliest_ahead();
        return *peeked_;
    }
    // Whether an event at the time of the last one taken out is left.
    bool more_now() const { return head_ < current_.size() && current_[head_].time == now_; }
    SimEvent pop() {
        while (head_ == current_.size()) advance();
        const SimEvent e = current_[head_++];
        --size_;
        now_ = e.time;
        peeked_ = nullptr;
        return e;
    }

private:
    static constexpr int slot_bits = 10;
    static constexpr std::int64_t slot_ps = std::int64_t{1} << slot_bits;
    static constexpr std::size_t slot_count = 4096;
    static constexpr std::int64_t horizon = slot_ps * static_cast<std::int64_t>(slot_count);

    static std::size_t slot_of(std::int64_t time) { return static_cast<std::size_t>(time >> slot_bits) & (slot_count - 1); }

    [[noreturn]] void time_went_backwards(std::int64_t time, std::uint8_t kind) const {
        std::fprintf(stderr, "evbench: internal error: simulated time went backwards (event kind %u scheduled at %lld ps, after %lld ps)\n",
                     static_cast<unsigned>(kind), static_cast<long long>(time), static_cast<long long>(now_));
        std::abort();
    }
    // The earliest event past the current slot, without moving anything.
    const SimEvent& earliest_ahead() {
        if (in_slots_ > 0)
            for (std::int64_t t = start_ + slot_ps;; t += slot_ps) {
                const auto& slot = slots_[slot_of(t)];
                if (!slot.empty()) {
                    const SimEvent& first = *std::min_element(slot.begin(), slot.end(), earlier);
                    return far_.empty() || earlier(first, far_.top()) ? first : far_.top();
                }
            }
        return far_.top();
    }
    // The current slot is used up: the next one becomes current (or, with every slot empty, the
    // slot of the earliest far event), taking the far events that fall in it, sorted.
    void advance() {
        current_.clear();
        head_ = 0;
        start_ = in_slots_ > 0 || far_.empty() ? start_ + slot_ps : far_.top().time & ~(slot_ps - 1);
        auto& slot = slots_[slot_of(start_)];
        in_slots_ -= slot.size();
        current_.swap(slot);
        while (!far_.empty() && far_.top().time < start_ + slot_ps) current_.push_back(far_.pop());
        if (current_.size() > 1) std::sort(current_.begin(), current_.end(), earlier);
    }

    std::vector<std::vector<SimEvent>> slots_;   // by time / slot_ps, modulo slot_count
    std::vector<SimEvent> current_;              // the slot of [start_, start_ + slot_ps), sorted
    std::size_t head_ = 0;                       // next event of current_
    std::size_t in_slots_ = 0;                   // events in slots_
    RadixHeap far_;                              // at start_ + horizon or later when pushed
    std::size_t size_ = 0;
    const SimEvent* peeked_ = nullptr;           // top() past the current slot, until the next push or pop
    std::int64_t start_ = 0;
    std::uint64_t next_seq_ = 0;
    std::int64_t now_ = 0;                       // time of the last event taken out
};

} // namespace evb::netsim
