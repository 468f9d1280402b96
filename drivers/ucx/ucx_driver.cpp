#include "drivers/ucx/ucx_driver.hpp"

#include "core/config_error.hpp"
#include "core/options.hpp"
#include "drivers/ucx/ucx_resources.hpp"

namespace evb {

void UcxDriver::declare_options(OptionSet& options) {
    options.text("ucx-tls", options_.tls, "LIST", "`ucx`: UCX transports, as UCX_TLS (`tcp`, `posix,cma`, `sysv,cma`, `rc_verbs`)")
        .shown_default("$UCX_TLS, else UCX's choice");
    options.text("ucx-devices", options_.devices, "LIST", "`ucx`: devices, as UCX_NET_DEVICES (`lo`, `eth0`, `rxe0:1`)")
        .shown_default("$UCX_NET_DEVICES, else all");
    options.text("ucx-write", options_.write, "WAY",
                 "`ucx`: how a fragment travels: `am` (an active message the target places, by rendezvous when large) or `put` "
                 "(ucp_put_nbx, then a notice once a flush covers it)");
}

void UcxDriver::preflight() const {
    if (options_.write != "am" && options_.write != "put")
        throw ConfigError("--ucx-write: unknown way '" + options_.write + "' (choose am or put)");
    if (auto problem = ucx_devices_problem("--ucx-devices", options_.devices)) throw ConfigError(*problem);
    if (auto problem = UcxTransport::start_problem(options_)) throw ConfigError(*problem);
}

void UcxDriver::preflight_rail(const std::string& nic) const {
    if (auto problem = ucx_devices_problem("--rails", nic)) throw ConfigError(*problem);
}

std::unique_ptr<Transport> UcxDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string&) const {
    return std::make_unique<UcxTransport>(rank, ranks, options_, heartbeat());
}

std::unique_ptr<Transport> UcxDriver::make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const {
    UcxOptions rail = options_;
    rail.devices = nic;
    return std::make_unique<UcxTransport>(rank, ranks, rail, heartbeat());
}

} // namespace evb
