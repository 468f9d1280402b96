// N ranks of one driver in this test process, connected, for the transport conformance suite:
// the driver's own factory (through the registry and its declared options), real sockets for
// one-rank-per-process drivers (each rank's connect on its own thread), the simulated fabric's
// engine for sim. Tests poll every rank through drive(), which also advances the simulator.
#pragma once
#include "transport.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace evb::test {

class TransportWorld {
public:
    // flags: the driver's own options as on the command line ("--tcp-read-chunk", "7").
    static std::unique_ptr<TransportWorld> make(const std::string& driver, std::uint32_t ranks, std::vector<std::string> flags = {});
    virtual ~TransportWorld() = default;

    std::uint32_t size() const { return static_cast<std::uint32_t>(transports_.size()); }
    Transport& at(std::uint32_t rank) { return *transports_.at(rank); }
    bool alive(std::uint32_t rank) const { return transports_.at(rank) != nullptr; }
    // Ends a rank abruptly, as a process that dies (its connections close).
    void kill(std::uint32_t rank) { transports_.at(rank).reset(); }
    // Advances what delivers besides polling (the simulated fabric's engine).
    virtual void advance() {}

    // Every completion each rank produced, in order (peer_lost's error text copied).
    struct Got {
        Completion completion;
        std::string error;
    };
    std::vector<std::vector<Got>> got;

    // Polls every live rank until `done` holds or a hang guard of `guard_s` seconds passes (a
    // guard against a stuck driver, never a measurement). Returns whether `done` held.
    bool drive(const std::function<bool()>& done, double guard_s = 60);
    // The same, polling only `ranks` (the others neither send nor receive meanwhile).
    bool drive_only(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s = 60);

protected:
    std::vector<std::unique_ptr<Transport>> transports_;
};

} // namespace evb::test
