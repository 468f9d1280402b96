#include "drivers/tcp/tcp_driver.hpp"

#include "core/config_error.hpp"
#include "core/machine_info.hpp"
#include "core/options.hpp"
#include "drivers/tcp/tcp_transport.hpp"

namespace evb {

void TcpDriver::declare_options(OptionSet& options) {
    options.whole("tcp-read-chunk", read_chunk_, "B",
                  "`tcp`, for tests: read at most B bytes per recv and once per peer per poll, so frames split at every boundary "
                  "and peers' frames interleave (0: read what is there)");
    options.whole("tcp-threads", threads_, "K",
                  "`tcp`: I/O threads per rank, each owning the sockets of peers p mod K, so one rank spends up to K cores on "
                  "the kernel's copies (1: the rank's own thread drives every socket)");
    options.whole("tcp-command-dscp", command_dscp_, "D",
                  "`tcp`: the DSCP (1..63) of the connections that carry commands (PULL's requests, credits), for switches "
                  "configured to serve it first (0: unmarked)");
}

void TcpDriver::preflight() const {
    if (threads_ == 0) throw ConfigError("--tcp-threads must be at least 1");
    if (command_dscp_ > 63) throw ConfigError("--tcp-command-dscp " + std::to_string(command_dscp_) + ": a DSCP is 0..63");
}

TcpTransport::Options TcpDriver::transport_options() const { return {read_chunk_, threads_, command_dscp_}; }

std::unique_ptr<Transport> TcpDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const {
    return std::make_unique<TcpTransport>(rank, ranks, listen_host, run_key(), transport_options());
}

void TcpDriver::preflight_rail(const std::string& nic) const {
    if (ipv4_of_interface(nic).empty()) throw ConfigError("--rails: no network interface '" + nic + "' with an IPv4 address here");
}

std::unique_ptr<Transport> TcpDriver::make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const {
    preflight_rail(nic);
    const std::string address = ipv4_of_interface(nic);
    return std::make_unique<TcpTransport>(rank, ranks, address, run_key(), transport_options());
}

} // namespace evb
