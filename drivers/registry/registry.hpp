// The one explicit list of drivers (CMake options decide which are compiled in), each with the
// executor that drives it: in-process drivers run every rank on one reactor, one-rank-per-process
// drivers under a launcher, the simulated fabric in simulated time. Nothing outside this list
// compares transport names.
#pragma once
#include "exec/run_config.hpp"
#include "drivers/transport/driver.hpp"
#include "core/run_key.hpp"
#include "exec/run_observer.hpp"
#include "exec/run_result.hpp"
#include "control/world.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace evb {

class OptionSet;

// What a run needs besides its configuration.
struct RunContext {
    const std::optional<World>& world;
    std::string fingerprint; // the configuration every rank must share
    const RunKey* key; // multi-process runs: the secret every connection between ranks proves
    RunObserver& observer;
};

struct DriverEntry {
    std::unique_ptr<Driver> driver;
    bool is_default = false;
    bool simulated_time = false; // its times are simulated: progress stamps in microseconds
    // Why --threads per-unit (several endpoints in one process) is refused; empty: supported.
    std::string per_unit_refusal;
    // Why --launch-local is refused (before it forks); empty: its ranks may be started by it.
    std::string launch_local_refusal;
    // Runs the event builder over this driver with its executor.
    std::function<RunOutcome(const Config&, const RunContext&)> run;
    // Completes the configuration with this driver's defaults (after the command line).
    std::function<void(Config&, const OptionSet&)> complete = nullptr;
    // A measurement this driver runs instead of the event builder when asked (mpi: --baseline);
    // returns the exit code, or nothing when not asked. It refuses the options given that it does not read.
    std::function<std::optional<int>(Config&, const OptionSet&, const std::optional<World>&,
                                     const std::function<nlohmann::json()>& config_echo, std::ostream&)>
        instead = nullptr;
};

class DriverRegistry {
public:
    DriverRegistry();
    const std::vector<DriverEntry>& entries() const { return entries_; }
    const DriverEntry* find(const std::string& name) const; // nullptr if unknown or not built
    std::string names() const; // "local, sim, tcp"
    const DriverEntry& default_entry() const; // the one marked is_default
    // Every driver's own options, each under a group named after the driver (a driver may open
    // more groups: sim's fabric and model).
    void declare_options(OptionSet& options);
    // The driver that declared an option group, or nullptr for the run's own groups.
    const Driver* owner_of(const std::string& group) const;

private:
    std::vector<DriverEntry> entries_;
    std::vector<std::pair<std::string, const Driver*>> group_owners_;
};

} // namespace evb
