// Registry entry of the verbs transport (rdma-core): one process per rank; its device and port.
#pragma once
#include "drivers/transport/driver.hpp"

#include <cstdint>
#include <string>

namespace evb {

class VerbsDriver final : public Driver {
public:
    const char* name() const override { return "verbs"; }
    const char* help() const override {
        return "rdma-core: rdma_cm connections by IP address (InfiniBand, RoCE, soft-RoCE), one RC QP per peer, a fragment as an RDMA "
               "WRITE into the BU's slot and an inline SEND WITH IMMEDIATE telling where, commands as inline SENDs";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    void declare_options(OptionSet& options) override;
    void preflight() const override;
    DriverProbe probe() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;
    // A rail is an RDMA device, listening on the first IPv4 address in its GID table.
    bool takes_rails() const override { return true; }
    void preflight_rail(const std::string& nic) const override;
    std::unique_ptr<Transport> make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const override;

private:
    std::string device_; // empty: whichever device owns the address
    std::uint32_t port_ = 1;
};

} // namespace evb
