// A fault in a file a user gave us (a topology or routing dump): "FILE:LINE: reason". It is an
// std::invalid_argument, so every command reports it as one line and exits 2.
#pragma once
#include <stdexcept>
#include <string>

namespace evb::netsim {

struct DumpError : std::invalid_argument {
    DumpError(const std::string& file, std::size_t line, const std::string& reason)
        : std::invalid_argument(file + (line ? ":" + std::to_string(line) : std::string()) + ": " + reason) {}
};

} // namespace evb::netsim
