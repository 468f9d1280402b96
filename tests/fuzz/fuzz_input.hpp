// What every fuzz target shares: the input as text, or as a file (the parsers read paths), and
// the rule that bad input may only be refused the way evbench refuses it (std::invalid_argument,
// incl. DumpError, or ConfigError): any other exception, crash or sanitizer report is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <unistd.h>

namespace evb::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// The input written to a file of this process (reused between runs).
inline std::string as_file(const std::uint8_t* data, std::size_t size, const char* suffix) {
    const std::string path = "/tmp/evbench-fuzz-" + std::to_string(getpid()) + suffix;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

} // namespace evb::fuzz
