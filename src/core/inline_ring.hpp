// FIFO that keeps up to N items inside itself, beside its owner's other fields, and moves them to
// a heap RingQueue only if it ever holds more (and stays there). For state read on every step of
// a hot loop whose queue is nearly always short: a RingQueue's items live in their own allocation,
// one more cache line to miss per access (the simulator's credit ramps: a fifth of its run time).
#pragma once
#include "core/ring_queue.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace evb {

template <typename T, std::size_t N>
class InlineRing {
    static_assert(N > 0 && (N & (N - 1)) == 0 && N <= 128, "N: a power of two up to 128");

public:
    bool empty() const { return size() == 0; }
    std::size_t size() const { return spill_ ? spill_->size() : count_; }
    bool spilled() const { return spill_ != nullptr; }
    T& front() { return spill_ ? spill_->front() : items_[head_]; }
    const T& front() const { return spill_ ? spill_->front() : items_[head_]; }
    T& at(std::size_t i) { return spill_ ? spill_->at(i) : items_[(head_ + i) & (N - 1)]; } // i < size()
    const T& at(std::size_t i) const { return spill_ ? spill_->at(i) : items_[(head_ + i) & (N - 1)]; }
    void pop() {
        if (spill_) {
            spill_->pop();
            return;
        }
        head_ = static_cast<std::uint8_t>((head_ + 1) & (N - 1));
        --count_;
    }
    // Builds the item in its place: a whole T built elsewhere and copied in is read back wider
    // than it was written, which the CPU cannot forward from its store buffer, so the copy waits
    // for every earlier store to reach the cache, misses included (the simulator's credit ramps).
    template <typename... Args>
    void emplace(Args... args) {
        if (!spill_ && count_ < N) {
            items_[(head_ + count_) & (N - 1)] = T{args...};
            ++count_;
        } else {
            push(T{args...});
        }
    }
    void push(const T& v) {
        if (spill_) {
            spill_->push(v);
        } else if (count_ < N) {
            items_[(head_ + count_) & (N - 1)] = v;
            ++count_;
        } else {
            spill_ = std::make_unique<RingQueue<T>>(2 * N);
            for (std::size_t i = 0; i < N; ++i) spill_->push(items_[(head_ + i) & (N - 1)]);
            spill_->push(v);
        }
    }

private:
    // The control first: with the first items, it shares its owner's first cache line.
    std::unique_ptr<RingQueue<T>> spill_;
    std::uint8_t head_ = 0, count_ = 0;
    std::array<T, N> items_{};
};

} // namespace evb
