#include "netsim/engine/ib_params.hpp"

#include <cmath>
#include <stdexcept>

namespace evb::netsim {

void IbParams::validate() const {
    auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    if (!(link_gbps > 0) || link_gbps > 1e5) fail("link rate must be within (0, 100000] Gb/s");
    if (link_latency.count() < 0 || credit_latency.count() < 0 || switch_latency.count() < 0) fail("latencies cannot be negative");
    if (flit_bytes == 0 || flit_bytes > 4096) fail("flit size must be within 1..4096 bytes");
    if (mtu == 0 || mtu > (1u << 20)) fail("MTU must be within 1 B..1 MiB");
    if (vls == 0 || vls > 15) fail("VLs per port must be within 1..15 (InfiniBand data VLs)");
    if (traffic_vls == 0 || traffic_vls > vls) fail("traffic VLs must be within 1..VLs per port (" + std::to_string(vls) + ")");
    if (buffer_bytes == 0) fail("input buffer is zero: no packet can ever be sent");
    if (buffer_blocks() < blocks(wire_bytes(mtu)))
        fail("input buffer of " + std::to_string(buffer_bytes) + " B per VL cannot hold one MTU packet (" +
             std::to_string(std::uint64_t{blocks(wire_bytes(mtu))} * flit_bytes) + " B): virtual cut-through would deadlock");
    if (buffer_blocks() > (1u << 24)) fail("input buffer per VL above 1 GiB");
}

double effective_bandwidth_gbps(const IbParams& p, std::uint64_t message_bytes) {
    return effective_bandwidth_gbps(p, message_bytes, p.link_gbps);
}

double effective_bandwidth_gbps(const IbParams& p, std::uint64_t message_bytes, double link_gbps) {
    if (message_bytes == 0) return 0;
    std::uint64_t packets = (message_bytes + p.mtu - 1) / p.mtu;
    double overhead = static_cast<double>(packets) * (p.header_bytes + p.footer_bytes);
    return link_gbps * static_cast<double>(message_bytes) / (static_cast<double>(message_bytes) + overhead);
}

std::uint64_t min_full_rate_buffer_bytes(const IbParams& p) {
    double loop_ps = static_cast<double>(p.flit_time_ps() + p.link_latency.count() + p.credit_latency.count());
    auto flits = static_cast<std::uint64_t>(std::ceil(loop_ps / static_cast<double>(p.flit_time_ps())));
    return flits * p.flit_bytes;
}

} // namespace evb::netsim
