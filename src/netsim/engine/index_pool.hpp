// Values kept by index with their slots reused: what an event's 32-bit word points to when the
// event needs more (a message, a flit-mode arrival, a timer's tag). An index stays valid from add
// until take; a freed slot is the next one handed out, so the pool holds at most as many as were
// live at once.
#pragma once
#include <cstdint>
#include <vector>

namespace evb::netsim {

template <class T>
class IndexPool {
public:
    std::uint32_t add(const T& value) {
        if (free_.empty()) {
            values_.push_back(value);
            return static_cast<std::uint32_t>(values_.size() - 1);
        }
        const std::uint32_t i = free_.back();
        free_.pop_back();
        values_[i] = value;
        return i;
    }
    T& operator[](std::uint32_t i) { return values_[i]; }
    const T& operator[](std::uint32_t i) const { return values_[i]; }
    // The value at `i`, whose slot is then free.
    T take(std::uint32_t i) {
        free_.push_back(i);
        return values_[i];
    }
    void release(std::uint32_t i) { free_.push_back(i); }

private:
    std::vector<T> values_;
    std::vector<std::uint32_t> free_;
};

} // namespace evb::netsim
