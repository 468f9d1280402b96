#include "drivers/ofi/ofi_driver.hpp"

#include "core/config_error.hpp"
#include "core/options.hpp"

namespace evb {

void OfiDriver::declare_options(OptionSet& options) {
    options.text("ofi-provider", options_.provider, "NAME", "`ofi`: libfabric provider (`tcp;ofi_rxm`, `shm`, `udp;ofi_rxd`, `sockets`)")
        .shown_default("$FI_PROVIDER, else the first that fits");
    options.text("ofi-domain", options_.domain, "NAME", "`ofi`: the provider's domain (an interface or device name)")
        .shown_default("the provider's first");
}

void OfiDriver::preflight() const {
    if (auto problem = OfiTransport::provider_problem(options_)) throw ConfigError(*problem);
}

void OfiDriver::preflight_rail(const std::string& nic) const {
    OfiOptions rail = options_;
    rail.domain = nic;
    if (auto problem = OfiTransport::provider_problem(rail)) throw ConfigError("--rails: " + *problem);
}

std::unique_ptr<Transport> OfiDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string&) const {
    return std::make_unique<OfiTransport>(rank, ranks, options_, heartbeat());
}

std::unique_ptr<Transport> OfiDriver::make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const {
    OfiOptions rail = options_;
    rail.domain = nic;
    return std::make_unique<OfiTransport>(rank, ranks, rail, heartbeat());
}

} // namespace evb
