#include "quantity.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace evb {
namespace {

// Splits "12.5KiB" into 12.5 and "KiB"; throws on a missing or malformed number.
std::pair<double, std::string> split_number(const std::string& text, const char* what) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw std::invalid_argument("'" + text + "' is not a " + what);
    }
    if (!std::isfinite(value) || value < 0)
        throw std::invalid_argument("'" + text + "' is not a " + what + " (must be finite and >= 0)");
    std::string unit = text.substr(used);
    while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
    return {value, unit};
}

} // namespace

std::uint64_t parse_size(const std::string& text) {
    auto [value, unit] = split_number(text, "size");
    double factor = 0;
    static const std::pair<std::string_view, double> units[] = {
        {"", 1}, {"B", 1}, {"k", 1e3}, {"K", 1e3}, {"kB", 1e3}, {"KB", 1e3}, {"KiB", 1024.0}, {"Ki", 1024.0},
        {"M", 1e6}, {"MB", 1e6}, {"MiB", 1048576.0}, {"Mi", 1048576.0},
        {"G", 1e9}, {"GB", 1e9}, {"GiB", 1073741824.0}, {"Gi", 1073741824.0},
        {"TB", 1e12}, {"TiB", 1099511627776.0}};
    for (const auto& [name, f] : units)
        if (unit == name) factor = f;
    if (factor == 0) throw std::invalid_argument("'" + text + "' has an unknown size unit '" + unit + "'");
    double bytes = value * factor;
    if (bytes > 1.8e19) throw std::invalid_argument("'" + text + "' is too large a size");
    if (bytes != std::floor(bytes)) throw std::invalid_argument("'" + text + "' is not a whole number of bytes");
    return static_cast<std::uint64_t>(bytes);
}

Picoseconds parse_duration(const std::string& text) {
    auto [value, unit] = split_number(text, "duration");
    double factor = 0;
    static const std::pair<std::string_view, double> units[] = {
        {"", 1e12}, {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}, {"ps", 1}, {"min", 60e12}};
    for (const auto& [name, f] : units)
        if (unit == name) factor = f;
    if (factor == 0) throw std::invalid_argument("'" + text + "' has an unknown time unit '" + unit + "'");
    double ps = value * factor;
    if (ps > 9.2e18) throw std::invalid_argument("'" + text + "' is too long a duration");
    return Picoseconds(static_cast<std::int64_t>(std::llround(ps)));
}

double parse_rate_bps(const std::string& text) {
    auto [value, unit] = split_number(text, "rate");
    double factor = 0;
    static const std::pair<std::string_view, double> units[] = {
        {"", 1}, {"bps", 1}, {"Kbps", 1e3}, {"kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12},
        {"Gb/s", 1e9}, {"Mb/s", 1e6}, {"Tb/s", 1e12}};
    for (const auto& [name, f] : units)
        if (unit == name) factor = f;
    if (factor == 0) throw std::invalid_argument("'" + text + "' has an unknown rate unit '" + unit + "'");
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
