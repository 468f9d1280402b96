// Registry entry of the libfabric transport: one process per rank; --ofi-provider and
// --ofi-domain choose where it runs (FI_PROVIDER in the environment is respected).
#pragma once
#include "drivers/transport/driver.hpp"
#include "drivers/ofi/ofi_transport.hpp"

namespace evb {

class OfiDriver final : public Driver {
public:
    const char* name() const override { return "ofi"; }
    const char* help() const override {
        return "libfabric reliable datagrams (FI_EP_RDM): commands injected into pre-posted receives, a fragment as fi_write into the BU's "
               "slot and a notice ordered after it (FI_ORDER_SAW); providers tcp;ofi_rxm, shm, udp;ofi_rxd, sockets";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    void declare_options(OptionSet& options) override;
    void preflight() const override;
    DriverProbe probe() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;
    // A rail is a domain of the provider (an interface or device name).
    bool takes_rails() const override { return true; }
    void preflight_rail(const std::string& nic) const override;
    std::unique_ptr<Transport> make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const override;

private:
    OfiOptions options_;
};

} // namespace evb
