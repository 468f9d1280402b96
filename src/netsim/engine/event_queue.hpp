// The simulator's time-ordered event queue: small plain events, taken out by time with ties
// broken by insertion order, so a run is deterministic bit for bit. An event scheduled before the
// last one taken out would make time go backwards: a broken invariant of the model, so the
// process aborts with one line saying so (as SST's TimeVortex and htsim's EventList do).
//
// A radix heap: since no event is ever scheduled before the last one taken out, an event waits in
// the bucket of the highest bit in which its time differs from that last time (bucket 0: the
// same time). Taking out the earliest only ever looks at bucket 0, refilled from the lowest other
// bucket when empty; each event moves down a few buckets at most, where a binary or 4-ary heap
// sifts through log n levels per push and pop (the heap was a third of a 512-node run).
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace evb::netsim {

struct SimEvent {
    std::int64_t time;   // ps
    std::uint64_t seq;   // insertion order, breaks ties
    std::uint32_t a, b, c;
    std::uint8_t kind;
};

class EventQueue {
public:
    explicit EventQueue(std::size_t reserve = 1 << 16) { buckets_[0].reserve(reserve); }

    void push(std::int64_t time, std::uint8_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
        if (time < now_) time_went_backwards(time, kind);
        const std::size_t b_index = bucket_of(time);
        buckets_[b_index].push_back(SimEvent{time, next_seq_++, a, b, c, kind});
        filled_ |= std::uint64_t{1} << b_index;
        ++size_;
        peeked_ = nullptr;
    }
    bool empty() const { return size_ == 0; }
    std::size_t size() const { return size_; }
    // The earliest event; the queue must not be empty. Looking does not move events (pop does):
    // events may still be scheduled between now and the earliest.
    const SimEvent& top() {
        if (head_ < buckets_[0].size()) return buckets_[0][head_];
        if (!peeked_) {
            const auto& lowest = buckets_[lowest_filled()];
            peeked_ = &*std::min_element(lowest.begin(), lowest.end(), earlier);
        }
        return *peeked_;
    }
    // Whether an event at the time of the last one taken out is left (bucket 0 holds exactly those).
    bool more_now() const { return head_ < buckets_[0].size(); }
    SimEvent pop() {
        if (head_ == buckets_[0].size()) refill();
        SimEvent e = buckets_[0][head_++];
        --size_;
        now_ = e.time;
        peeked_ = nullptr;
        return e;
    }

private:
    [[noreturn]] void time_went_backwards(std::int64_t time, std::uint8_t kind) const {
        std::fprintf(stderr, "evbench: internal error: simulated time went backwards (event kind %u scheduled at %lld ps, after %lld ps)\n",
                     static_cast<unsigned>(kind), static_cast<long long>(time), static_cast<long long>(now_));
        std::abort();
    }
    static bool earlier(const SimEvent& x, const SimEvent& y) { return x.time < y.time || (x.time == y.time && x.seq < y.seq); }
    // The bucket of the highest bit in which `time` differs from base_, the time of bucket 0's
    // events and of the last event taken out (no event left is earlier).
    std::size_t bucket_of(std::int64_t time) const {
        const auto diff = static_cast<std::uint64_t>(time) ^ static_cast<std::uint64_t>(base_);
        return static_cast<std::size_t>(std::bit_width(diff));
    }
    std::size_t lowest_filled() const { return static_cast<std::size_t>(std::countr_zero(filled_ & ~std::uint64_t{1})); }
    // Bucket 0 is used up: the lowest filled bucket holds the earliest events; their time becomes
    // the base and the bucket's events spread over lower buckets (those of that time all into
    // bucket 0, put back in insertion order).
    void refill() {
        buckets_[0].clear();
        head_ = 0;
        auto& from = buckets_[lowest_filled()];
        base_ = (peeked_ ? *peeked_ : *std::min_element(from.begin(), from.end(), earlier)).time;   // top() found it
        for (const SimEvent& e : from) {
            const std::size_t b_index = bucket_of(e.time);
            buckets_[b_index].push_back(e);
            filled_ |= std::uint64_t{1} << b_index;
        }
        from.clear();
        filled_ &= ~(std::uint64_t{1} << (&from - buckets_.data()));
        auto& now = buckets_[0];
        auto by_seq = [](const SimEvent& x, const SimEvent& y) { return x.seq < y.seq; };
        if (!std::is_sorted(now.begin(), now.end(), by_seq)) std::sort(now.begin(), now.end(), by_seq);
    }

    // Times are never negative, so two differ in bit 62 at most: buckets 0..63.
    std::array<std::vector<SimEvent>, 64> buckets_;
    std::uint64_t filled_ = 0;       // bit i: bucket i holds events (bucket 0's bit may stay set)
    std::size_t head_ = 0;           // next event of bucket 0
    std::size_t size_ = 0;
    const SimEvent* peeked_ = nullptr;   // top() while bucket 0 is empty, until the next push or pop
    std::int64_t base_ = 0;
    std::uint64_t next_seq_ = 0;
    std::int64_t now_ = 0;           // time of the last event taken out
};

} // namespace evb::netsim
