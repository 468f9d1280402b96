#include "exec/endpoint_thread.hpp"

#include "exec/run_loop.hpp"
#include "core/time.hpp"

#include <algorithm>

namespace evb {
namespace {
const Picoseconds connect_timeout = Picoseconds::from_seconds(30);
const Picoseconds publish_period = Picoseconds::from_seconds(0.001);
} // namespace

ThreadSlot thread_slot(const Layout& layout, std::uint32_t rank, std::uint32_t local_rank, std::uint32_t local_ranks,
                       std::uint32_t endpoint) {
    const std::uint32_t host_first = rank >= local_rank ? rank - local_rank : 0;
    const std::uint32_t host_end = std::min(host_first + std::max(local_ranks, 1u), layout.ranks());
    const std::uint32_t base = layout.first_endpoint_of(host_first);
    const std::uint32_t end = host_end < layout.ranks() ? layout.first_endpoint_of(host_end) : layout.endpoints();
    return {endpoint - base, end - base};
}

UnitsOfRank take_units(UnitsOfRank& all, const RankUnits& which) {
    UnitsOfRank part;
    part.node = all.node;
    for (auto it = all.units.begin(); it != all.units.end();) {
        const UnitAddress a = it->address;
        const bool wanted = (a.role == Role::readout && which.readout == a.index) ||
            (a.role == Role::builder && which.builder == a.index) || (a.role == Role::manager && which.manager);
        if (wanted) {
            part.units.push_back(std::move(*it));
            it = all.units.erase(it);
        } else {
            ++it;
        }
    }
    return part;
}

std::vector<MemoryPool*> pools_of(const UnitsOfRank& units) {
    std::vector<MemoryPool*> pools;
    for (const auto& h : units.units)
        for (MemoryPool* p : h.unit->pools()) pools.push_back(p);
    return pools;
}

EndpointThread::EndpointThread(Setup setup, std::unique_ptr<Transport> transport, UnitsOfRank units)
    : setup_(std::move(setup)), transport_(std::move(transport)), units_(std::move(units)), reactor_(setup_.poll) {
    placed_future_ = placed_.get_future();
    connected_future_ = connected_.get_future();
    thread_ = std::thread([this] {
        try {
            const PlacementPlan plan = place_this_thread(setup_.config, setup_.slot.slot, setup_.slot.slots, setup_.nic);
            RankPlacement p = read_back_placement(setup_.layout.rank_of_endpoint(transport_->rank()), plan, setup_.nic, pools_of(units_),
                                                  transport_->capabilities().pins_memory);
            p.units = setup_.units;
            placed_.set_value(std::move(p));
        } catch (...) {
            placed_.set_exception(std::current_exception());
            return;
        }
        run();
    });
}

EndpointThread::~EndpointThread() { stop(); }

void EndpointThread::run() {
    std::vector<std::string> addresses;
    try {
        addresses = addresses_.get_future().get();
        transport_->connect(addresses, connect_timeout);
        node_ = std::make_unique<Node>(std::move(units_), setup_.layout, *transport_, setup_.log);
        connected_.set_value();
    } catch (...) {
        connected_.set_exception(std::current_exception());
        return;
    }
    const std::optional<Picoseconds> origin = go_.get_future().get();
    if (!origin) return;
    reactor_.add(*node_);
    node_->set_now(steady_now() - *origin);
    node_->start();
    RunLoop loop(reactor_, *origin);
    loop.every(Picoseconds(0), [&](Picoseconds) {
        if (stopping_.load(std::memory_order_acquire)) return loop.end();
        if (end_now_.load(std::memory_order_acquire) && !node_->ended_now()) node_->end_now();
    });
    loop.every(publish_period, [&](Picoseconds) { publish(); });
    loop.run();
    node_->stop();
}

void EndpointThread::publish() {
    const ProgressCounts p = ProgressCounts::of(node_->stats());
    bytes_in_.store(p.bytes_in, std::memory_order_relaxed);
    bytes_out_.store(p.bytes_out, std::memory_order_relaxed);
    events_.store(p.events, std::memory_order_relaxed);
    in_flight_.store(p.in_flight, std::memory_order_relaxed);
    built_bytes_.store(p.built_bytes, std::memory_order_relaxed);
    if (node_->failure() && !failed_.load(std::memory_order_relaxed)) {
        std::lock_guard lock(failure_mutex_);
        failure_ = node_->failure();
        failed_.store(true, std::memory_order_release);
    }
    finished_.store(node_->finished(), std::memory_order_release);
}

RankPlacement EndpointThread::placement() { return placed_future_.get(); }

void EndpointThread::connect(std::vector<std::string> addresses) {
    addresses_given_ = true;
    addresses_.set_value(std::move(addresses));
}

void EndpointThread::wait_connected() { connected_future_.get(); }

void EndpointThread::go(Picoseconds origin) {
    go_given_ = true;
    go_.set_value(origin);
}

std::optional<std::string> EndpointThread::failure() const {
    if (!failed_.load(std::memory_order_acquire)) return std::nullopt;
    std::lock_guard lock(failure_mutex_);
    return failure_;
}

ProgressCounts EndpointThread::progress() const {
    return {bytes_in_.load(std::memory_order_relaxed), bytes_out_.load(std::memory_order_relaxed), events_.load(std::memory_order_relaxed),
            in_flight_.load(std::memory_order_relaxed), built_bytes_.load(std::memory_order_relaxed)};
}

void EndpointThread::stop() {
    if (!thread_.joinable()) return;
    // A thread still waiting for a step is released: without addresses it cannot connect, and
    // without a start it ends before its units begin.
    if (!addresses_given_) {
        addresses_given_ = true;
        addresses_.set_exception(std::make_exception_ptr(std::runtime_error("the rank gave up before connecting")));
    }
    if (!go_given_) {
        go_given_ = true;
        go_.set_value(std::nullopt);
    }
    stopping_.store(true, std::memory_order_release);
    thread_.join();
}

} // namespace evb
