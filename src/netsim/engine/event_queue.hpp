// The simulator's time-ordered event queue: small plain events, taken out by time with ties
// broken by insertion order, so a run is deterministic bit for bit. An event scheduled before the
// last one taken out would make time go backwards: a broken invariant of the model, so the
// process aborts with one line saying so (as SST's TimeVortex and htsim's EventList do).
//
// A timing wheel: nearly every event of a fabric lands within a packet's time on a link and a
// hop's latency ahead, so that span is cut into 256 slots (2.048 ns each for EDR), each a vector;
// a push is an append, and a slot is sorted once, when time reaches it. Later events (timers)
// wait in a binary heap and move into the wheel as it turns, so an event is moved at most once
// (a radix heap moves it through several buckets). The wheel is kept short so its slots stay in
// cache.
//
// An event carries no insertion number: a slot receives its events in insertion order (those
// from the heap first, in order, when the wheel reaches their slot; then those pushed directly),
// so a sort by time that keeps the order of equal times (insertion sort: a slot holds about a
// dozen events, nearly in order) gives time-then-insertion order. Only the heap numbers its
// events, for its ties.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace evb::netsim {

// 16 B: what most events need, a port or a queue; an event that needs more points into a pool.
struct SimEvent {
    std::int64_t time; // ps
    std::uint32_t a;
    std::uint8_t kind;
};

class EventQueue {
public:
    // Slots wide enough that `span` (ps) fits in the wheel; only while the queue is empty.
    void cover(std::int64_t span) {
        slot_bits_ =
            std::max(8u, static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(span, 0)) / slots)));
        current_ = slot_of(now_);
    }
    // Most events land in a later slot of the wheel: that append is inline, the rest is not.
    void push(std::int64_t time, std::uint8_t kind, std::uint32_t a) {
        if (time < now_) time_went_backwards(time, kind);
        ++size_;
        peeked_ = nullptr;
        const std::uint64_t s = slot_of(time);
        if (s != current_ && s < current_ + slots) [[likely]] {
            append(time, kind, a, s);
            return;
        }
        push_now_or_later(SimEvent{time, a, kind}, s);
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // The earliest event; the queue must not be empty. Looking does not turn the wheel (pop
    // does): events may still be scheduled between now and the earliest.
    const SimEvent& top() {
        const auto& slot = slots_[current_ & mask];
        if (head_ < slot.size()) return slot[head_];
        if (!peeked_) {
            const std::uint64_t next = next_filled();
            if (next == none) {
                peeked_ = &later_.front().event;
            } else { // the first of the earliest: inserted first
                const auto& s = slots_[next & mask];
                peeked_ = &*std::min_element(s.begin(), s.end(), earlier);
            }
        }
        return *peeked_;
    }
    // Whether an event at the time of the last one taken out is left.
    bool more_now() const {
        const auto& slot = slots_[current_ & mask];
        return head_ < slot.size() && slot[head_].time == now_;
    }
    // Takes out the earliest event into `e` if it is due by `until` (one look at the slot in the
    // common case; the wheel turns only for an event that is taken out).
    bool pop_due(std::int64_t until, SimEvent& e) {
        const auto& slot = slots_[current_ & mask];
        if (head_ < slot.size() ? slot[head_].time > until : empty() || top().time > until) return false;
        e = pop();
        return true;
    }
    SimEvent pop() {
        if (head_ == slots_[current_ & mask].size()) turn();
        const SimEvent e = slots_[current_ & mask][head_++];
        --size_;
        now_ = e.time;
        peeked_ = nullptr;
        return e;
    }

private:
    static constexpr std::uint64_t slots = 256, mask = slots - 1;
    static constexpr std::uint64_t none = UINT64_MAX;

    [[noreturn]] void time_went_backwards(std::int64_t time, std::uint8_t kind) const {
        std::fprintf(stderr, "evbench: internal error: simulated time went backwards (event kind %u scheduled at %lld ps, after %lld ps)\n",
                     static_cast<unsigned>(kind), static_cast<long long>(time), static_cast<long long>(now_));
        std::abort();
    }
    // Beyond the wheel, events keep their insertion number for the heap's ties.
    struct Numbered {
        SimEvent event;
        std::uint64_t seq;
    };
    // Function objects, not functions: the algorithms then inline them (through a function
    // pointer every comparison was a call).
    static constexpr auto earlier = [](const SimEvent& x, const SimEvent& y) { return x.time < y.time; };
    static constexpr auto later = [](const Numbered& x, const Numbered& y) {
        return y.event.time < x.event.time || (x.event.time == y.event.time && y.seq < x.seq);
    };
    std::uint64_t slot_of(std::int64_t time) const { return static_cast<std::uint64_t>(time) >> slot_bits_; }
    // Into the slot being taken out (`s` is current_), or beyond the wheel.
    [[gnu::noinline]] void push_now_or_later(const SimEvent& e, std::uint64_t s) {
        if (s != current_) { // beyond the wheel
            later_.push_back(Numbered{e, next_seq_++});
            std::push_heap(later_.begin(), later_.end(), later);
            return;
        }
        // The slot being taken out is sorted: insert after all at or before its time.
        std::vector<SimEvent>& slot = slots_[s & mask];
        auto at = slot.end();
        while (at != slot.begin() + static_cast<std::ptrdiff_t>(head_) && e.time < (at - 1)->time) --at;
        slot.insert(at, e);
    }
    // Into slot `s` (absolute, within the wheel, not the one being taken out), unsorted. Built in
    // the slot, field by field: a SimEvent built on the stack and copied in is read back as one
    // 16 B load over three smaller stores, which waits for every earlier store to reach the cache.
    // (clang 14 has no emplace_back(time, a, kind) of an aggregate.)
    void append(std::int64_t time, std::uint8_t kind, std::uint32_t a, std::uint64_t s) {
        SimEvent& e = slots_[s & mask].emplace_back();
        e.time = time;
        e.a = a;
        e.kind = kind;
        filled_[(s & mask) / 64] |= std::uint64_t{1} << (s % 64);
    }

    // The first filled slot after the current one, as an absolute slot number; none if the wheel
    // is empty. The wheel holds slots current_ .. current_ + slots - 1 only, so circular order
    // from the current slot is time order.
    std::uint64_t next_filled() const {
        constexpr std::uint64_t words = slots / 64;
        const std::uint64_t cur = current_ & mask, w0 = cur / 64, b0 = cur % 64;
        std::uint64_t bits = b0 == 63 ? 0 : filled_[w0] & (~std::uint64_t{0} << (b0 + 1)); // after the current slot
        for (std::uint64_t i = 0;;) {
            if (bits) {
                const std::uint64_t pos = (w0 + i) % words * 64 + static_cast<std::uint64_t>(std::countr_zero(bits));
                return current_ + ((pos - cur) & mask);
            }
            if (++i > words) return none;
            bits = filled_[(w0 + i) % words];
            if (i == words) bits &= ~(~std::uint64_t{0} << b0); // back at the current word: the slots before it
        }
    }
    // The current slot is used up: move to the next filled one (or to the earliest later event),
    // bring the later events that now fall within the wheel into it, and sort the new slot.
    void turn() {
        auto& done = slots_[current_ & mask];
        done.clear();
        head_ = 0;
        filled_[(current_ & mask) / 64] &= ~(std::uint64_t{1} << (current_ % 64));
        const std::uint64_t next = next_filled();
        current_ = next != none ? next : slot_of(later_.front().event.time);
        while (!later_.empty() && slot_of(later_.front().event.time) < current_ + slots) {
            const SimEvent e = later_.front().event;
            std::pop_heap(later_.begin(), later_.end(), later);
            later_.pop_back();
            append(e.time, e.kind, e.a, slot_of(e.time));
        }
        sort_by_time(slots_[current_ & mask]);
    }
    // Stable: equal times keep their insertion order. An insertion sort for the usual dozen
    // (std::stable_sort would ask for a buffer on every turn of the wheel).
    static void sort_by_time(std::vector<SimEvent>& slot) {
        if (slot.size() > 32) {
            std::stable_sort(slot.begin(), slot.end(), earlier);
            return;
        }
        for (auto i = slot.begin() + (slot.empty() ? 0 : 1); i < slot.end(); ++i) {
            if (!(i->time < (i - 1)->time)) continue;
            const SimEvent e = *i;
            auto j = i;
            do {
                *j = *(j - 1);
                --j;
            } while (j != slot.begin() && e.time < (j - 1)->time);
            *j = e;
        }
    }

    std::array<std::vector<SimEvent>, slots> slots_;
    std::array<std::uint64_t, slots / 64> filled_{}; // bit per slot: holds events (the current one's may stay set)
    std::vector<Numbered> later_; // heap, earliest on top: beyond the wheel
    unsigned slot_bits_ = 11; // log2 of a slot's width in ps
    std::uint64_t current_ = 0; // absolute slot number being taken out
    std::size_t head_ = 0; // next event of the current slot
    std::size_t size_ = 0;
    const SimEvent* peeked_ = nullptr; // top() past the current slot, until the next push or pop
    std::uint64_t next_seq_ = 0; // insertion number of the next event into the heap
    std::int64_t now_ = 0; // time of the last event taken out
};

} // namespace evb::netsim
