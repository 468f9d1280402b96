#include "tcp_driver.hpp"

#include "tcp_transport.hpp"

namespace evb {

std::unique_ptr<Transport> TcpDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const {
    return std::make_unique<TcpTransport>(rank, ranks, listen_host);
}

} // namespace evb
