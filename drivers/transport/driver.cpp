#include "drivers/transport/driver.hpp"

#include <stdexcept>

namespace evb {

std::vector<std::unique_ptr<Transport>> Driver::make_all(std::uint32_t) const {
    throw std::logic_error(std::string("driver ") + name() + " does not build every rank in one process");
}

std::unique_ptr<Transport> Driver::make_one(std::uint32_t, std::uint32_t, const std::string&) const {
    throw std::logic_error(std::string("driver ") + name() + " does not build one rank per process");
}

const RunKey& Driver::run_key() const {
    if (!run_key_) throw std::logic_error(std::string("driver ") + name() + ": no run key was given before its transports were made");
    return *run_key_;
}

std::unique_ptr<Transport> Driver::make_rail(std::uint32_t, std::uint32_t, const std::string&) const {
    throw std::logic_error(std::string("driver ") + name() + " takes one NIC");
}

} // namespace evb
