#include "transport_world.hpp"

#include "options.hpp"
#include "registry.hpp"
#include "fabric_options.hpp"
#include "sim_network.hpp"
#include "sim_run.hpp"
#include "sim_transport.hpp"

#include <CLI/CLI.hpp>

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
    void timer(netsim::FabricSim&, std::uint32_t, std::uint64_t tag) override {
        if (tag & SimNetwork::loopback_tag) network_->loopback_done(tag);
    }
    std::unique_ptr<netsim::Fabric> fabric_;
    std::unique_ptr<netsim::FabricSim> sim_;
    std::unique_ptr<SimNetwork> network_;
};

class RegistryWorld final : public TransportWorld {
public:
    RegistryWorld(const std::string& name, std::uint32_t ranks, std::vector<std::string> flags) {
        OptionSet options;
        registry_.declare_options(options);
        flags.insert(flags.begin(), "conformance");
        std::vector<const char*> argv;
        for (const auto& f : flags) argv.push_back(f.c_str());
        CLI::App app{"conformance"};
        options.attach(app);
        std::ostringstream help;
        options.parse(app, static_cast<int>(argv.size()), argv.data(), help);
        const DriverEntry* entry = registry_.find(name);
        if (!entry) throw std::invalid_argument("driver " + name + " is not built");
        const Driver& d = *entry->driver;
        if (d.processes() == Driver::Processes::all_in_one) {
            transports_ = d.make_all(ranks);
            return;
        }
        std::vector<std::string> addresses;
        for (std::uint32_t r = 0; r < ranks; ++r) {
            transports_.push_back(d.make_one(r, ranks, "127.0.0.1"));
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

private:
    DriverRegistry registry_;   // the driver objects own their options and outlive the transports
};

} // namespace

std::unique_ptr<TransportWorld> TransportWorld::make(const std::string& driver, std::uint32_t ranks, std::vector<std::string> flags) {
    std::unique_ptr<TransportWorld> w;
    if (driver == "sim")
        w = std::make_unique<SimWorld>(ranks);
    else
        w = std::make_unique<RegistryWorld>(driver, ranks, std::move(flags));
    w->got.resize(ranks);
    return w;
}

bool TransportWorld::drive(const std::function<bool()>& done, double guard_s) {
    std::vector<std::uint32_t> all(size());
    for (std::uint32_t r = 0; r < size(); ++r) all[r] = r;
    return drive_only(all, done, guard_s);
}

bool TransportWorld::drive_only(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s) {
    auto start = std::chrono::steady_clock::now();
    std::array<Completion, 64> batch{};
    for (;;) {
        if (done()) return true;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > guard_s) return false;
        advance();
        for (std::uint32_t r : ranks) {
            if (!alive(r)) continue;
            std::size_t n = at(r).poll(batch);
            for (std::size_t i = 0; i < n; ++i) got[r].push_back({batch[i], batch[i].error ? batch[i].error : ""});
        }
    }
}

} // namespace evb::test
