// Parsing of configuration values that carry units: sizes ("1MiB", "512KB"), durations ("170ns",
// "2.5s"), rates ("100Gbps"). Each throws std::invalid_argument with a message naming the text.
#pragma once
#include "core/time.hpp"

#include <cstdint>
#include <string>

namespace evb {

std::uint64_t parse_size(const std::string& text);           // bytes; plain numbers are bytes
Picoseconds parse_duration(const std::string& text);         // plain numbers are seconds
double parse_rate_bps(const std::string& text);              // bits per second; plain numbers are b/s
std::string format_size(std::uint64_t bytes);                // "1MiB", "1000B", ...
std::string quantity_units_help();                           // the units each parser takes, a line per kind, for --help
std::string format_size_about(std::uint64_t bytes);          // estimates: "1.2GiB", "340.5MiB", "800B"
std::string format_duration(Picoseconds t);                  // "5s", "170ns", "2.5ms", "0s"

} // namespace evb
