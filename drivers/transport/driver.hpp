// A driver as the registry lists it (drivers/registry.cpp): its name and help, its own options
// (declared once, under its name), a check of what this machine must offer, and the factory of
// its transports. Drivers know peers, regions and bytes, never events.
#pragma once
#include "core/run_key.hpp"
#include "drivers/transport/transport.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace evb {

class OptionSet;

// What a driver finds usable on this machine, for `evbench info`: lines for the page and the same
// as JSON (the libfabric providers that fit, UCX's transports, the MPI library, ...).
struct DriverProbe {
    std::vector<std::string> lines;
    nlohmann::json json = nlohmann::json::object();
};

class Driver {
public:
    // How ranks map to processes: all in this one, or one process per rank (a launcher).
    enum class Processes { all_in_one, one_per_rank };

    virtual ~Driver() = default;
    virtual const char* name() const = 0;
    virtual const char* help() const = 0;
    virtual Processes processes() const = 0;
    // Its flags, declared into `options` (the caller opened a group named after the driver).
    virtual void declare_options(OptionSet& options) { (void)options; }
    // Throws ConfigError, one line, when this machine lacks what the driver needs; runs once,
    // before any rank starts.
    virtual void preflight() const {}
    // `evbench info`: nothing for drivers that use only what the machine's own section shows.
    virtual DriverProbe probe() const { return {}; }
    // all_in_one: every rank's transport, in rank order.
    virtual std::vector<std::unique_ptr<Transport>> make_all(std::uint32_t ranks) const;
    // one_per_rank: this rank's transport, listening on `listen_host`.
    virtual std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const;
    // --rails: whether this driver can run one transport per NIC, and the one on `nic` (an RDMA
    // device, libfabric domain or network interface, as the driver names NICs).
    virtual bool takes_rails() const { return false; }
    // Throws ConfigError, one line, when this machine has no NIC `nic` for a rail (before launching).
    virtual void preflight_rail(const std::string& nic) const { (void)nic; }
    virtual std::unique_ptr<Transport> make_rail(std::uint32_t rank, std::uint32_t ranks, const std::string& nic) const;
    // Why an idle rank of this driver cannot sleep (it has no wait object): its ranks spin, and
    // --poll adaptive or event is refused with this reason. Empty when its transports can sleep.
    virtual const char* no_wait_object() const { return ""; }

    // The run's key, which the connections a driver opens itself prove (tcp's, rdma_cm's);
    // given before make_one. run_key() throws std::logic_error before.
    void use_run_key(const RunKey& key) { run_key_ = &key; }
    const RunKey& run_key() const;
    // --heartbeat (0: none), which transports whose endpoints cannot see a peer go away while
    // idle beat with; given before make_one.
    void use_heartbeat(Picoseconds timeout) { heartbeat_ = timeout; }
    Picoseconds heartbeat() const { return heartbeat_; }

private:
    const RunKey* run_key_ = nullptr;
    Picoseconds heartbeat_{};
};

} // namespace evb
