// Parsing of configuration values that carry units: sizes ("1MiB", "512KB"), durations ("170ns",
// "2.5s"), rates ("100Gbps"). Each throws std::invalid_argument with a message naming the text.
#pragma once
#include "core/time.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace evb {

// The one number syntax of every flag and file value: a decimal number at the start of `text`
// (digits, an optional point and exponent, an optional leading '-'); no hexadecimal, no 'inf' or
// 'nan', no leading space or '+'. Sets `used` to its length; nothing when there is none or it is
// out of a double's range.
std::optional<double> leading_decimal(std::string_view text, std::size_t& used);
std::uint64_t parse_size(const std::string& text); // bytes; plain numbers are bytes
Picoseconds parse_duration(const std::string& text); // plain numbers are seconds
double parse_rate_bps(const std::string& text); // bits per second; plain numbers are b/s
std::string format_size(std::uint64_t bytes); // "1MiB", "1000B", ...
std::string quantity_units_help(); // the units each parser takes, a line per kind, for --help
std::string format_size_about(std::uint64_t bytes); // estimates: "1.2GiB", "340.5MiB", "800B"
std::string format_duration(Picoseconds t); // "5s", "170ns", "2.5ms", "0s"

} // namespace evb
