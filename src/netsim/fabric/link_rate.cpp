#include "netsim/fabric/link_rate.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace evb::netsim {
namespace {

// Per lane, after encoding: SDR to QDR are 8b/10b (2.5, 5, 10 Gbaud), FDR10 to EDR 64b/66b
// (10.3125, 14.0625, 25.78125 Gbaud), HDR and later PAM4 with 50, 100, 200 Gb/s of data a lane.
constexpr std::array<std::pair<const char*, double>, 9> lane_gbps{{
    {"SDR", 2.0},
    {"DDR", 4.0},
    {"QDR", 8.0},
    {"FDR10", 10.3125 * 64 / 66},
    {"FDR", 14.0625 * 64 / 66},
    {"EDR", 25.78125 * 64 / 66},
    {"HDR", 50.0},
    {"NDR", 100.0},
    {"XDR", 200.0},
}};

} // namespace

std::optional<double> link_data_gbps(const std::string& kind) {
    const auto x = kind.find('x');
    if (x == std::string::npos || x == 0) return std::nullopt;
    unsigned width = 0;
    auto [end, error] = std::from_chars(kind.data(), kind.data() + x, width);
    if (error != std::errc{} || end != kind.data() + x) return std::nullopt;
    if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return std::nullopt;
    const std::string speed = kind.substr(x + 1);
    for (const auto& [name, gbps] : lane_gbps)
        if (speed == name) return width * gbps;
    return std::nullopt;
}

std::string link_kind_expected() {
    std::string speeds;
    for (const auto& [name, gbps] : lane_gbps) (speeds += speeds.empty() ? "" : ", ") += name;
    return "an InfiniBand width (1x, 2x, 4x, 8x, 12x) and speed (" + speeds + ")";
}

} // namespace evb::netsim
