// Registry entry of the TCP transport: one process per rank, listening on --listen-host; its
// options: I/O threads, the commands' DSCP, and small reads (tests of the framing).
#pragma once
#include "drivers/tcp/tcp_transport.hpp"
#include "drivers/transport/driver.hpp"

namespace evb {

class TcpDriver final : public Driver {
public:
    const char* name() const override { return "tcp"; }
    const char* help() const override {
        return "full mesh of non-blocking sockets driven by epoll; a write is a frame header plus the payload, received straight "
               "into the registered region";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    void declare_options(OptionSet& options) override;
    void preflight() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;
    // A rail is a network interface, listened on at its first IPv4 address.
    bool takes_rails() const override { return true; }
    void preflight_rail(const std::string& nic) const override;
    std::unique_ptr<Transport> make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const override;

private:
    TcpTransport::Options transport_options() const;
    std::uint64_t read_chunk_ = 0;
    std::uint32_t threads_ = 1;
    std::uint32_t command_dscp_ = 0;
};

} // namespace evb
