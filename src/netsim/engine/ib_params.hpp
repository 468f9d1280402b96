// Parameters of the InfiniBand model (defaults: EDR as measured in thesis 3.4.3 / paper 001) and
// the packetisation arithmetic derived from them: packets of at most one MTU of payload plus
// header and CRC, cut into 64 B flits, which are also the unit of link-level credits.
#pragma once
#include "core/time.hpp"

#include <cstdint>
#include <string>

namespace evb::netsim {

using namespace evb::literals;

// Time to put `bytes` on a link of `gbps`, rounded to the nearest picosecond (halves away from
// zero, as std::llround, without its library call: this runs for every packet and hop).
inline std::int64_t serialisation_ps(std::uint64_t bytes, double gbps) {
    const double ps = static_cast<double>(bytes) * 8000.0 / gbps;
    auto whole = static_cast<std::int64_t>(ps); // ps >= 0: truncation, and ps - whole is exact
    return ps - static_cast<double>(whole) >= 0.5 ? whole + 1 : whole;
}

struct IbParams {
    double link_gbps = 100.0; // data rate of every link (EDR 4x)
    Picoseconds link_latency = 170_ns; // propagation + link controller, after serialisation
    Picoseconds credit_latency = 170_ns; // a block leaves an input buffer -> its credit at the sender
    Picoseconds switch_latency = 0_ns; // head of a packet in an input buffer -> may be arbitrated
    std::uint32_t mtu = 4096; // payload bytes per packet
    std::uint32_t header_bytes = 20; // LRH 8 + BTH 12
    std::uint32_t footer_bytes = 6; // ICRC 4 + VCRC 2
    std::uint32_t flit_bytes = 64; // flit = credit block
    std::uint64_t buffer_bytes = 64 * 1024; // input buffer per port per VL
    std::uint32_t vls = 4; // data VLs per port
    std::uint32_t traffic_vls = 1; // VLs the traffic is spread over (by destination)

    // Throws std::invalid_argument naming the first impossible value.
    void validate() const;

    std::uint32_t wire_bytes(std::uint32_t payload) const { return payload + header_bytes + footer_bytes; }
    std::uint32_t blocks(std::uint32_t wire) const { return (wire + flit_bytes - 1) / flit_bytes; }
    std::uint32_t buffer_blocks() const { return static_cast<std::uint32_t>(buffer_bytes / flit_bytes); }
    // Serialisation time of `bytes` on a link, rounded to the picosecond.
    std::int64_t wire_time_ps(std::uint64_t bytes) const { return serialisation_ps(bytes, link_gbps); }
    std::int64_t flit_time_ps() const { return wire_time_ps(flit_bytes); }
};

// Thesis eq. 2.13-2.14: payload bandwidth of a message of `message_bytes` cut into MTU packets,
// in Gb/s. (The thesis prints ceil(M/T); the packet count is ceil(T/M).)
double effective_bandwidth_gbps(const IbParams& p, std::uint64_t message_bytes);
// The same on a link of `link_gbps` (a fabric whose links differ: the host's own link).
double effective_bandwidth_gbps(const IbParams& p, std::uint64_t message_bytes, double link_gbps);
// Thesis eq. 2.17 for this model: the buffer (bytes per VL) a single stream needs to run at line
// rate, (2 t_c + t_f + 1/f_C) b_f with one credit per flit: t_flit + link + credit latency.
std::uint64_t min_full_rate_buffer_bytes(const IbParams& p);

} // namespace evb::netsim
