// A fault in a file a user gave us (a topology or routing dump): "FILE:LINE: reason". It is an
// std::invalid_argument, so every command reports it as one line and exits 2.
#pragma once
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

} // namespace evb::netsim
