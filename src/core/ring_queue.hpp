// FIFO on a power-of-two ring: reserve once, no allocation per element in the steady state
// (it doubles only if a bound was underestimated). Capacity 0 allocates on the first push.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace evb {

template <typename T>
class RingQueue {
public:
    explicit RingQueue(std::size_t capacity = 16) {
        if (capacity == 0) return;
        std::size_t c = 1;
        while (c < capacity) c <<= 1;
        items_.resize(c);
    }
    bool empty() const { return head_ == tail_; }
    std::size_t size() const { return tail_ - head_; }
    T& front() { return items_[head_ & (items_.size() - 1)]; }
    const T& front() const { return items_[head_ & (items_.size() - 1)]; }
    T& at(std::size_t i) { return items_[(head_ + i) & (items_.size() - 1)]; } // i < size()
    const T& at(std::size_t i) const { return items_[(head_ + i) & (items_.size() - 1)]; }
    void pop() { ++head_; }
    void push(const T& v) {
        if (size() == items_.size()) grow();
        items_[tail_++ & (items_.size() - 1)] = v;
    }

private:
    void grow() {
        std::vector<T> bigger(items_.empty() ? 16 : items_.size() * 2);
        std::size_t n = size();
        for (std::size_t i = 0; i < n; ++i) bigger[i] = std::move(items_[(head_ + i) & (items_.size() - 1)]);
        items_ = std::move(bigger);
        head_ = 0;
        tail_ = n;
    }
    std::vector<T> items_;
    std::size_t head_ = 0, tail_ = 0;
};

} // namespace evb
