// The one explicit list of transports. CMake options decide which entries are compiled in.
#pragma once
#include "config.hpp"
#include "transport.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace evb {

struct DriverEntry {
    const char* name;
    const char* help;
    bool is_default;
    // In-process drivers build every rank in this process; the others build one rank per process.
    std::function<std::vector<std::unique_ptr<Transport>>(const Config&, std::uint32_t ranks)> make_all;
    std::function<std::unique_ptr<Transport>(const Config&, std::uint32_t rank, std::uint32_t ranks)> make_one;
    // Optional: checks what this machine must have before any rank starts (throws ConfigError).
    std::function<void(const Config&)> preflight = nullptr;
};

const std::vector<DriverEntry>& drivers();
const DriverEntry* find_driver(const std::string& name);   // nullptr if unknown or not built
std::string driver_names();                                  // "local, tcp"

} // namespace evb
