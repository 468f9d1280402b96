#include "drivers/local/local_driver.hpp"

#include "drivers/local/local_transport.hpp"

namespace evb {

std::vector<std::unique_ptr<Transport>> LocalDriver::make_all(std::uint32_t ranks) const {
    auto fabric = std::make_shared<LocalFabric>(ranks);
    std::vector<std::unique_ptr<Transport>> all;
    for (std::uint32_t r = 0; r < ranks; ++r) all.push_back(std::make_unique<LocalTransport>(fabric, r));
    return all;
}

} // namespace evb
