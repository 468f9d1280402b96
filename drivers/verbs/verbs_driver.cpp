#include "drivers/verbs/verbs_driver.hpp"

#include "core/config_error.hpp"
#include "core/options.hpp"
#include "drivers/verbs/verbs_transport.hpp"

namespace evb {

void VerbsDriver::declare_options(OptionSet& options) {
    options
        .text("verbs-device", device_, "NAME",
              "`verbs`: RDMA device (`mlx5_0`, `rxe0`); unknown names are refused with the list of devices")
        .shown_default("the device owning the address");
    options.whole("verbs-port", port_, "N", "`verbs`: device port");
}

void VerbsDriver::preflight() const {
    if (auto problem = VerbsTransport::device_problem(device_)) throw ConfigError(*problem);
}

std::unique_ptr<Transport> VerbsDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const {
    return std::make_unique<VerbsTransport>(rank, ranks, VerbsOptions{device_, port_, listen_host}, run_key());
}

void VerbsDriver::preflight_rail(const std::string& nic) const {
    if (auto problem = VerbsTransport::device_problem(nic)) throw ConfigError("--rails: " + *problem);
}

std::unique_ptr<Transport> VerbsDriver::make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const {
    preflight_rail(nic);
    return std::make_unique<VerbsTransport>(rank, ranks, VerbsOptions{nic, port_, ""}, run_key());
}

} // namespace evb
