#include "core/quantity.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace evb {

std::optional<double> leading_decimal(std::string_view text, std::size_t& used) {
    used = 0;
    const std::size_t digits_from = !text.empty() && text.front() == '-' ? 1 : 0;
    if (text.size() <= digits_from) return std::nullopt;
    const char first = text[digits_from];
    if (!(first >= '0' && first <= '9') && first != '.') return std::nullopt; // from_chars would take "inf" and "nan"
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
    if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
    used = static_cast<std::size_t>(end - text.data());
    return value;
}

namespace {

// Splits "12.5KiB" into 12.5 and "KiB"; throws on a missing or malformed number.
std::pair<double, std::string> split_number(const std::string& text, const char* what) {
    std::size_t used = 0;
    const std::optional<double> number = leading_decimal(text, used);
    if (!number) throw std::invalid_argument("'" + text + "' is not a " + what);
    const double value = *number;
    if (used < text.size() && (text[used] == 'x' || text[used] == 'X') && text.compare(0, used, "0") == 0)
        throw std::invalid_argument("'" + text + "' is not a " + what + ": numbers are decimal");
    if (value < 0) throw std::invalid_argument("'" + text + "' is not a " + what + " (must be finite and >= 0)");
    std::string unit = text.substr(used);
    while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
    return {value, unit};
}

struct Unit {
    std::string_view name;
    double factor; // of the base unit (bytes, picoseconds, bits per second)
    std::string_view means; // how --help and the error line explain a group of equal units
};
// The units each parser takes, and how they are explained: one table per kind. K and M are SI
// (1000), as in ib_write_bw's and qperf's figures; Ki and Mi are binary (iperf3's K is 1024).
constexpr Unit size_units_in[] = {{"", 1, "bytes"},
                                  {"B", 1, "bytes"},
                                  {"k", 1e3, "1000 B"},
                                  {"K", 1e3, "1000 B"},
                                  {"kB", 1e3, "1000 B"},
                                  {"KB", 1e3, "1000 B"},
                                  {"Ki", 1024.0, "1024 B"},
                                  {"KiB", 1024.0, "1024 B"},
                                  {"M", 1e6, "1000^2 B"},
                                  {"MB", 1e6, "1000^2 B"},
                                  {"Mi", 1048576.0, "1024^2 B"},
                                  {"MiB", 1048576.0, "1024^2 B"},
                                  {"G", 1e9, "1000^3 B"},
                                  {"GB", 1e9, "1000^3 B"},
                                  {"Gi", 1073741824.0, "1024^3 B"},
                                  {"GiB", 1073741824.0, "1024^3 B"},
                                  {"TB", 1e12, "1000^4 B"},
                                  {"TiB", 1099511627776.0, "1024^4 B"}};
constexpr Unit time_units_in[] = {{"", 1e12, "seconds"},  {"s", 1e12, "seconds"}, {"ms", 1e9, "10^-3 s"}, {"us", 1e6, "10^-6 s"},
                                  {"ns", 1e3, "10^-9 s"}, {"ps", 1, "10^-12 s"},  {"min", 60e12, "60 s"}};
constexpr Unit rate_units_in[] = {{"", 1, "bit/s"},
                                  {"bps", 1, "bit/s"},
                                  {"kbps", 1e3, "10^3 bit/s"},
                                  {"Kbps", 1e3, "10^3 bit/s"},
                                  {"Mbps", 1e6, "10^6 bit/s"},
                                  {"Mb/s", 1e6, "10^6 bit/s"},
                                  {"Gbps", 1e9, "10^9 bit/s"},
                                  {"Gb/s", 1e9, "10^9 bit/s"},
                                  {"Tbps", 1e12, "10^12 bit/s"},
                                  {"Tb/s", 1e12, "10^12 bit/s"}};

template <std::size_t N>
double factor_of(const Unit (&units)[N], const std::string& unit) {
    for (const auto& u : units)
        if (unit == u.name) return u.factor;
    return 0;
}

// "a plain number, B = bytes; k, K, kB, KB = 1000 B; ..." from the table, equal meanings joined.
template <std::size_t N>
std::string units_line(const Unit (&units)[N]) {
    std::string line;
    for (std::size_t i = 0; i < N;) {
        std::string names;
        std::size_t j = i;
        for (; j < N && units[j].means == units[i].means; ++j) {
            if (!names.empty()) names += ", ";
            names += units[j].name.empty() ? std::string_view("a plain number") : units[j].name;
        }
        if (!line.empty()) line += "; ";
        line += names;
        line += " = ";
        line += units[i].means;
        i = j;
    }
    return line;
}

} // namespace

std::string quantity_units_help() {
    return "Sizes: " + units_line(size_units_in) + "\nDurations: " + units_line(time_units_in) + "\nRates: " + units_line(rate_units_in) +
        "\n";
}

std::uint64_t parse_size(const std::string& text) {
    auto [value, unit] = split_number(text, "size");
    const double factor = factor_of(size_units_in, unit);
    if (factor == 0)
        throw std::invalid_argument("'" + text + "' has an unknown size unit '" + unit + "' (units: " + units_line(size_units_in) + ")");
    double bytes = value * factor;
    if (bytes > 1.8e19) throw std::invalid_argument("'" + text + "' is too large a size");
    if (bytes != std::floor(bytes)) throw std::invalid_argument("'" + text + "' is not a whole number of bytes");
    return static_cast<std::uint64_t>(bytes);
}

Picoseconds parse_duration(const std::string& text) {
    auto [value, unit] = split_number(text, "duration");
    const double factor = factor_of(time_units_in, unit);
    if (factor == 0)
        throw std::invalid_argument("'" + text + "' has an unknown time unit '" + unit + "' (units: " + units_line(time_units_in) + ")");
    double ps = value * factor;
    if (ps > 9.2e18) throw std::invalid_argument("'" + text + "' is too long a duration");
    return Picoseconds(static_cast<std::int64_t>(std::llround(ps)));
}

double parse_rate_bps(const std::string& text) {
    auto [value, unit] = split_number(text, "rate");
    const double factor = factor_of(rate_units_in, unit);
    if (factor == 0)
        throw std::invalid_argument("'" + text + "' has an unknown rate unit '" + unit + "' (units: " + units_line(rate_units_in) + ")");
    return value * factor;
}

namespace {
constexpr const char* size_units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
}

std::string format_size(std::uint64_t bytes) {
    int i = 0;
    while (i < 4 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++i;
    }
    return std::to_string(bytes) + size_units[i];
}

std::string format_size_about(std::uint64_t bytes) {
    int i = 0;
    double value = static_cast<double>(bytes);
    while (i < 4 && value >= 1024) {
        value /= 1024;
        ++i;
    }
    char text[32];
    std::snprintf(text, sizeof text, i == 0 ? "%.0f%s" : "%.1f%s", value, size_units[i]);
    return text;
}

std::string format_duration(Picoseconds t) {
    static const struct {
        std::int64_t ps;
        const char* unit;
    } units[] = {{1'000'000'000'000, "s"}, {1'000'000'000, "ms"}, {1'000'000, "us"}, {1'000, "ns"}, {1, "ps"}};
    const std::int64_t v = t.count();
    if (v == 0) return "0s";
    for (const auto& u : units)
        if (v % u.ps == 0) return std::to_string(v / u.ps) + u.unit;
    return std::to_string(v) + "ps";
}

} // namespace evb
