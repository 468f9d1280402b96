#include "tcp_driver.hpp"

#include "options.hpp"
#include "tcp_transport.hpp"

namespace evb {

void TcpDriver::declare_options(OptionSet& options) {
    options.whole("tcp-read-chunk", read_chunk_, "B",
                  "`tcp`, for tests: read at most B bytes per recv and once per peer per poll, so frames split at every boundary "
                  "and peers' frames interleave (0: read what is there)");
}

std::unique_ptr<Transport> TcpDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const {
    return std::make_unique<TcpTransport>(rank, ranks, listen_host, read_chunk_);
}

} // namespace evb
