// Which pieces of each source's fragment have landed, per BU slot: one mask per (slot, source).
// A byte per mask while the message mix has at most 8 pieces (the usual 1), else 4 bytes: at
// 4096 RUs and 16 credits that is 64 KiB per BU instead of 256 KiB.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

namespace evb {

class PieceMasks {
public:
    PieceMasks(std::uint32_t slots, std::uint32_t sources, std::uint32_t pieces)
        : sources_(sources), width_(pieces <= 8 ? 1 : 4), bytes_(std::size_t{slots} * sources * width_, 0) {}

    std::uint32_t get(std::uint32_t slot, std::uint32_t source) const {
        const std::uint8_t* at = where(slot, source);
        if (width_ == 1) return *at;
        std::uint32_t mask = 0;
        std::memcpy(&mask, at, sizeof mask);
        return mask;
    }
    void set(std::uint32_t slot, std::uint32_t source, std::uint32_t mask) {
        std::uint8_t* at = where(slot, source);
        if (width_ == 1)
            *at = static_cast<std::uint8_t>(mask);
        else
            std::memcpy(at, &mask, sizeof mask);
    }
    void clear(std::uint32_t slot) { std::memset(where(slot, 0), 0, std::size_t{sources_} * width_); }

private:
    std::uint8_t* where(std::uint32_t slot, std::uint32_t source) {
        return bytes_.data() + (std::size_t{slot} * sources_ + source) * width_;
    }
    const std::uint8_t* where(std::uint32_t slot, std::uint32_t source) const {
        return bytes_.data() + (std::size_t{slot} * sources_ + source) * width_;
    }
    std::uint32_t sources_, width_;
    std::vector<std::uint8_t> bytes_;
};

} // namespace evb
