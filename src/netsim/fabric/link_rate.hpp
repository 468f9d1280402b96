// The data rate of an InfiniBand link from the width and speed a dump names ("4xEDR": 4 lanes of
// EDR), after line encoding: what the simulator serialises at. ibnetdiscover prints the active
// width and speed of each cable on both ends' lines.
#pragma once
#include <optional>
#include <string>

namespace evb::netsim {

// Gb/s of data on a link of `kind` ("4xEDR" 100, "4xHDR" 200, "4xNDR" 400, "4xFDR" 54.55,
// "4xQDR" 32, "2xHDR" 100); nullopt if the width or the speed is not one InfiniBand defines.
std::optional<double> link_data_gbps(const std::string& kind);

// What link_data_gbps accepts, for messages: "an InfiniBand width (1x, 2x, 4x, 8x, 12x) and
// speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)".
std::string link_kind_expected();

} // namespace evb::netsim
