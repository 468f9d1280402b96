#include "transport_world.hpp"

#include "core/options.hpp"
#include "drivers/transport/rails_transport.hpp"
#include "drivers/registry/registry.hpp"
#include "netsim/fabric/fabric_options.hpp"
#include "drivers/sim/sim_network.hpp"
#include "drivers/sim/sim_run.hpp"
#include "drivers/sim/sim_transport.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace evb::test {
namespace {

// The simulated fabric: the smallest fat tree that holds the ranks, one rank per host, every
// byte of a write copied (no header-only memory), the engine run between polls.
class SimWorld final : public TransportWorld, private netsim::SimApp {
public:
    explicit SimWorld(std::uint32_t ranks) {
        ranks_ = ranks;
        netsim::FabricOptions o;
        o.tree.k = fat_tree_k_for(ranks);
        fabric_ = std::make_unique<netsim::Fabric>(netsim::build_fabric(o));
        sim_ = std::make_unique<netsim::FabricSim>(fabric_->topology, fabric_->routing, netsim::SimOptions{});
        std::vector<std::uint32_t> hosts(ranks);
        for (std::uint32_t r = 0; r < ranks; ++r) hosts[r] = r;
        network_ = std::make_unique<SimNetwork>(*sim_, hosts, std::size_t{1} << 40);
        for (std::uint32_t r = 0; r < ranks; ++r) transports_.push_back(std::make_unique<SimTransport>(*network_, r));
    }
    void advance() override { sim_->run(*this, sim_->now() + Picoseconds::from_seconds(1e-3)); }

private:
    void start(netsim::FabricSim&) override {}
    void delivered(netsim::FabricSim&, const netsim::SimMessage& m) override { network_->delivered(m); }
    void acknowledged(netsim::FabricSim&, const netsim::SimMessage& m) override { network_->acknowledged(m); }
    bool wants_acks() const override { return true; }
    void timer(netsim::FabricSim&, std::uint32_t, std::uint64_t tag) override {
        if (tag & SimNetwork::loopback_tag) network_->loopback_done(tag);
    }
    std::unique_ptr<netsim::Fabric> fabric_;
    std::unique_ptr<netsim::FabricSim> sim_;
    std::unique_ptr<SimNetwork> network_;
};

class RegistryWorld final : public TransportWorld {
public:
    // UCX: ranks that were separate processes would each go on progressing until they close, and
    // a UCX 1.13 endpoint closed while its wireup is pending asserts (ucp_request.c:684): a last
    // 100 ms of polls lets the set-ups finish. Only for ucx: a driver whose test left data in
    // flight could land it in the test's regions, which are gone by now.
    ~RegistryWorld() override {
        if (!settle_) return;
        const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
        while (std::chrono::steady_clock::now() < until) progress();
    }
    // rails: NICs, comma-separated (--rails), or empty for one.
    RegistryWorld(const DriverEntry& entry, std::uint32_t ranks, const std::string& rails, Picoseconds heartbeat)
        : settle_(std::string(entry.driver->name()) == "ucx") {
        ranks_ = ranks;
        static const RunKey key = RunKey::random();
        entry.driver->use_run_key(key);
        entry.driver->use_heartbeat(heartbeat);
        const Driver& d = *entry.driver;
        if (d.processes() == Driver::Processes::all_in_one) {
            transports_ = d.make_all(ranks);
            return;
        }
        std::vector<std::string> addresses;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            if (rails.empty()) {
                transports_.push_back(d.make_one(r, ranks, "127.0.0.1"));
            } else {
                transports_.push_back(RailsTransport::make(d, r, ranks, rails));
            }
            addresses.push_back(transports_.back()->local_address());
        }
        // connect() waits for the peers: every rank connects at once, as separate processes would.
        std::vector<std::thread> threads;
        std::vector<std::string> errors(ranks);
        for (std::uint32_t r = 0; r < ranks; ++r)
            threads.emplace_back([&, r] {
                try {
                    transports_[r]->connect(addresses, Picoseconds::from_seconds(20));
                } catch (const std::exception& e) {
                    errors[r] = e.what();
                }
            });
        for (auto& t : threads) t.join();
        for (const auto& e : errors)
            if (!e.empty()) throw std::runtime_error("connect: " + e);
    }

    // The keys a test gathers are of regions it has just registered: the registration cards go
    // round first, as the executor sends them once every region is registered.
    std::vector<std::uint64_t> gather(const std::function<std::uint64_t(std::uint32_t)>& value_of_mine) override {
        auto values = TransportWorld::gather(value_of_mine);
        std::vector<std::string> cards;
        for (const auto& t : transports_) cards.push_back(t ? t->registration_card() : "");
        for (const auto& t : transports_)
            if (t) t->learn_registrations(cards);
        return values;
    }

private:
    bool settle_;
};

// The drivers with their options parsed from `flags`; they own those options and outlive the
// transports they make.
DriverRegistry& registry_with(std::vector<std::string> flags) {
    static std::vector<std::unique_ptr<DriverRegistry>> kept;
    kept.push_back(std::make_unique<DriverRegistry>());
    DriverRegistry& registry = *kept.back();
    OptionSet options;
    registry.declare_options(options);
    flags.insert(flags.begin(), "conformance");
    std::vector<const char*> argv;
    for (const auto& f : flags) argv.push_back(f.c_str());
    CLI::App app{"conformance"};
    options.attach(app);
    std::ostringstream help;
    options.parse(app, static_cast<int>(argv.size()), argv.data(), help);
    return registry;
}

} // namespace

std::unique_ptr<TransportWorld> TransportWorld::make(const std::string& driver, std::uint32_t ranks, std::vector<std::string> flags,
                                                     std::string& why_not, Picoseconds heartbeat) {
    std::unique_ptr<TransportWorld> w;
    if (driver == "sim") {
        w = std::make_unique<SimWorld>(ranks);
    } else {
        const bool rma = std::find(flags.begin(), flags.end(), "--mpi-rma") != flags.end();
        // --rails is the run's flag, not the driver's: taken out here.
        std::string rails;
        if (auto it = std::find(flags.begin(), flags.end(), "--rails"); it != flags.end() && it + 1 != flags.end()) {
            rails = *(it + 1);
            flags.erase(it, it + 2);
        }
        DriverRegistry& registry = registry_with(std::move(flags));
        const DriverEntry* entry = registry.find(driver);
        if (!entry) {
            why_not = "driver " + driver + " is not built here";
            return nullptr;
        }
        try {
            entry->driver->preflight();
        } catch (const std::exception& e) {
            why_not = std::string("not on this machine: ") + e.what();
            return nullptr;
        }
        if (driver == "mpi") { // one rank per process: the world spans the processes of mpirun
            w = make_mpi_world(ranks, rma, why_not);
            if (!w) return nullptr;
        } else {
            w = std::make_unique<RegistryWorld>(*entry, ranks, rails, heartbeat);
        }
    }
    w->got.resize(ranks);
    return w;
}

Transport& TransportWorld::at(std::uint32_t rank) {
    if (!mine(rank) || !transports_.at(rank)) throw std::logic_error("rank " + std::to_string(rank) + " is not in this process");
    return *transports_[rank];
}

Transport& TransportWorld::any_of_mine() {
    for (std::uint32_t r = 0; r < size(); ++r)
        if (mine(r) && transports_[r]) return *transports_[r];
    throw std::logic_error("no rank in this process");
}

std::vector<std::uint64_t> TransportWorld::gather(const std::function<std::uint64_t(std::uint32_t)>& value_of_mine) {
    std::vector<std::uint64_t> all(size());
    for (std::uint32_t r = 0; r < size(); ++r) all[r] = value_of_mine(r);
    return all;
}

bool TransportWorld::all_mine(const std::function<bool(std::uint32_t)>& check) const {
    for (std::uint32_t r = 0; r < ranks_; ++r)
        if (mine(r) && !check(r)) return false;
    return true;
}

std::vector<std::uint32_t> TransportWorld::all_ranks() const {
    std::vector<std::uint32_t> all(ranks_);
    for (std::uint32_t r = 0; r < ranks_; ++r) all[r] = r;
    return all;
}

void TransportWorld::progress(const std::vector<std::uint32_t>& ranks) {
    std::array<Completion, 64> batch{};
    advance();
    for (std::uint32_t r : ranks) {
        if (!mine(r) || !alive(r)) continue;
        std::size_t n = transports_[r]->poll(batch);
        for (std::size_t i = 0; i < n; ++i) got[r].push_back({batch[i], batch[i].error ? batch[i].error : ""});
    }
}

bool TransportWorld::drive_loop(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s,
                                bool until_any) {
    auto start = std::chrono::steady_clock::now();
    for (;;) {
        const bool late = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > guard_s;
        auto [finished, someone_late] = agree(done(), late, until_any);
        if (finished) return true;
        if (someone_late) return false;
        progress(ranks);
    }
}

bool TransportWorld::drive(const std::function<bool()>& done, double guard_s) { return drive_loop(all_ranks(), done, guard_s, false); }

bool TransportWorld::drive_only(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s) {
    return drive_loop(ranks, done, guard_s, false);
}

bool TransportWorld::drive_until_any(const std::function<bool()>& done, double guard_s) {
    return drive_loop(all_ranks(), done, guard_s, true);
}

#ifndef EVB_HAVE_MPI
std::unique_ptr<TransportWorld> make_mpi_world(std::uint32_t, bool, std::string& why_not) {
    why_not = "the mpi driver is not built here";
    return nullptr;
}
#endif

PostStatus post_until_taken(TransportWorld& w, const std::function<PostStatus()>& post) {
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        PostStatus s = post();
        if (s != PostStatus::no_resource || std::chrono::steady_clock::now() - start > std::chrono::seconds(60)) return s;
        w.progress();
    }
}

} // namespace evb::test
