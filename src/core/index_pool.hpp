// Values kept by a 32-bit index with their slots reused: what a small handle points to when it
// cannot carry the value itself (the simulator's events: a message, a flit-mode arrival, a timer's
// tag; the psm2 driver's requests: the operation behind a completion's context). An index stays
// valid from add until take or release; a freed slot is the next one handed out, so the pool holds
// at most as many as were live at once.
#pragma once
#include <cstdint>
#include <vector>

namespace evb {

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

} // namespace evb
