// The real executor with one rank per process (tcp, mpi, verbs, ...): bootstrap through rank 0,
// connect the data transport, drive this rank's units, agree on the end, gather statistics at
// rank 0. Rank 0's outcome holds the run's result; the others' only their own failure.
#pragma once
#include "exec/run_config.hpp"
#include "exec/run_observer.hpp"
#include "core/run_key.hpp"
#include "exec/run_result.hpp"
#include "drivers/transport/transport.hpp"
#include "control/world.hpp"

#include <functional>
#include <memory>
#include <string>

namespace evb {

// Makes the transport of one endpoint of this rank (the rank itself unless --threads per-unit);
// listen_host is --listen-host, or the one chosen for this world.
using RankTransportFactory =
    std::function<std::unique_ptr<Transport>(const std::string& listen_host, std::uint32_t endpoint, std::uint32_t endpoints)>;
struct RankTransports {
    RankTransportFactory make;
    // Its transports have a wait object (Driver::no_wait_object): an idle rank sleeps until there
    // is work, so --poll adaptive drops its spin on a host with more ranks' threads than CPUs.
    // Without one (mpi) the spin is what catches the next arrival, and stays.
    bool sleep = true;
};

// fingerprint: the configuration every rank must share (checked at the bootstrap); key: the
// secret every bootstrap connection proves.
RunOutcome run_distributed(const Config& config, const World& world, const std::string& fingerprint, const RunKey& key,
                           const RankTransports& transports, RunObserver& observer);

} // namespace evb
