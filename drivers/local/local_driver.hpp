// Registry entry of the in-process transport: every rank in this process, no options.
#pragma once
#include "drivers/transport/driver.hpp"

namespace evb {

class LocalDriver final : public Driver {
public:
    const char* name() const override { return "local"; }
    const char* help() const override { return "all ranks in one process, one thread; a write is a memcpy into the target slot"; }
    Processes processes() const override { return Processes::all_in_one; }
    std::vector<std::unique_ptr<Transport>> make_all(std::uint32_t ranks) const override;
};

} // namespace evb
