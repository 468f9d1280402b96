// Registry entry of the UCX transport: one process per rank; --ucx-tls and --ucx-devices choose
// UCX's transports and devices (UCX_TLS and UCX_NET_DEVICES in the environment are respected).
#pragma once
#include "drivers/transport/driver.hpp"
#include "drivers/ucx/ucx_transport.hpp"

namespace evb {

class UcxDriver final : public Driver {
public:
    const char* name() const override { return "ucx"; }
    const char* help() const override {
        return "UCX (UCP): commands and fragments as active messages (--ucx-write am; put: ucp_put_nbx into the BU's slot and a "
               "notice once an endpoint flush covers it); UCX_TLS tcp, posix/sysv with cma, rc_verbs";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    void declare_options(OptionSet& options) override;
    void preflight() const override;
    DriverProbe probe() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;
    // A rail is a UCX device (as UCX_NET_DEVICES names it: `mlx5_0:1`, `eth0`).
    bool takes_rails() const override { return true; }
    void preflight_rail(const std::string& nic) const override;
    std::unique_ptr<Transport> make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const override;

private:
    UcxOptions options_;
};

} // namespace evb
