// The simulator's time-ordered event queue: small plain events in a pre-allocated 4-ary heap,
// ties broken by insertion order, so a run is deterministic bit for bit. An event scheduled
// before the last one taken out would make time go backwards: a broken invariant of the model,
// so the process aborts with one line saying so (as SST's TimeVortex and htsim's EventList do).
#pragma once
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
    explicit EventQueue(std::size_t reserve = 1 << 16) { heap_.reserve(reserve); }

    void push(std::int64_t time, std::uint8_t kind, std::uint32_t a, std::uint32_t b = 0, std::uint32_t c = 0) {
        if (time < now_) time_went_backwards(time, kind);
        heap_.push_back(SimEvent{time, next_seq_++, a, b, c, kind});
        sift_up(heap_.size() - 1);
    }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    const SimEvent& top() const { return heap_.front(); }
    SimEvent pop() {
        SimEvent top = heap_.front();
        now_ = top.time;
        heap_.front() = heap_.back();
        heap_.pop_back();
        if (!heap_.empty()) sift_down(0);
        return top;
    }

private:
    [[noreturn]] void time_went_backwards(std::int64_t time, std::uint8_t kind) const {
        std::fprintf(stderr, "evbench: internal error: simulated time went backwards (event kind %u scheduled at %lld ps, after %lld ps)\n",
                     static_cast<unsigned>(kind), static_cast<long long>(time), static_cast<long long>(now_));
        std::abort();
    }
    static bool before(const SimEvent& x, const SimEvent& y) { return x.time < y.time || (x.time == y.time && x.seq < y.seq); }
    void sift_up(std::size_t i) {
        SimEvent e = heap_[i];
        while (i > 0) {
            std::size_t parent = (i - 1) / 4;
            if (!before(e, heap_[parent])) break;
            heap_[i] = heap_[parent];
            i = parent;
        }
        heap_[i] = e;
    }
    void sift_down(std::size_t i) {
        SimEvent e = heap_[i];
        const std::size_t n = heap_.size();
        for (;;) {
            std::size_t first = 4 * i + 1;
            if (first >= n) break;
            std::size_t best = first;
            std::size_t last = first + 4 < n ? first + 4 : n;
            for (std::size_t c = first + 1; c < last; ++c)
                if (before(heap_[c], heap_[best])) best = c;
            if (!before(heap_[best], e)) break;
            heap_[i] = heap_[best];
            i = best;
        }
        heap_[i] = e;
    }

    std::vector<SimEvent> heap_;
    std::uint64_t next_seq_ = 0;
    std::int64_t now_ = 0;   // time of the last event taken out
};

} // namespace evb::netsim
