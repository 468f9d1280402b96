// A fault in a file a user gave us (a topology or routing dump): "FILE:LINE: reason". It is an
// std::invalid_argument, so every command reports it as one line and exits 2.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace evb::netsim {

struct DumpError : std::invalid_argument {
    DumpError(const std::string& file, std::size_t line, const std::string& reason) : std::invalid_argument(where(file, line, reason)) {}

private:
    // Appends, not `":" + std::to_string(line)`: GCC 12's -Wrestrict misreads that inserting
    // operator+ in Release builds (a false positive that printed a page on every build).
    static std::string where(const std::string& file, std::size_t line, const std::string& reason) {
        std::string text = file;
        if (line) {
            text += ':';
            text += std::to_string(line);
        }
        text += ": ";
        text += reason;
        return text;
    }
};

// A dump's number, never cut to 32 bits (0x100000001 would become LID 1): beyond `max` it is
// std::out_of_range like any number too long for stoul. Fields that a later check bounds with
// a clearer message (a port against its node's count, a LID against the unicast range) keep
// the default; an LFT's LID, which indexes the table, must fit 16 bits.
inline std::uint32_t dump_number(const std::string& digits, int base = 10, std::uint32_t max = UINT32_MAX) {
    unsigned long value = std::stoul(digits, nullptr, base);
    if (value > max) throw std::out_of_range(digits);
    return static_cast<std::uint32_t>(value);
}

} // namespace evb::netsim
