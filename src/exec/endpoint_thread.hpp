// --threads per-unit: a further endpoint of this rank on a thread of its own. The thread pins
// itself and reads its placement back, connects its transport when handed the world's addresses,
// then drives its node's reactor until told to stop, publishing for the rank's control loop
// (on the rank's own thread, with its first endpoint) whether it finished or failed and how far it got.
// Each step hands over through a future, so an error on the thread reaches the rank's thread as
// the exception it raised.
#pragma once
#include "exec/run_config.hpp"
#include "exec/node.hpp"
#include "exec/progress_counts.hpp"
#include "exec/rank_placement.hpp"
#include "exec/reactor.hpp"

#include <atomic>
#include <future>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace evb {

// Where a thread goes among the threads of its host: slot of slots (placement takes them in turn).
struct ThreadSlot {
    std::uint32_t slot = 0, slots = 1;
};

class EndpointThread {
public:
    struct Setup {
        const Config& config;
        const Layout& layout;
        spdlog::logger& log;
        ThreadSlot slot;
        NicName nic;
        std::string units; // for the placement line: "BU 0"
        PollMode poll; // --poll as this host runs it (poll_on_host)
    };
    EndpointThread(Setup setup, std::unique_ptr<Transport> transport, UnitsOfRank units);
    ~EndpointThread(); // stops and joins, whatever step it is at

    Transport& transport() { return *transport_; }
    // Waits for the thread's pinning and read-back; rethrows its ConfigError.
    RankPlacement placement();
    // Hands over the world's addresses; the thread connects and registers its pools.
    void connect(std::vector<std::string> addresses);
    // Waits for that; rethrows the transport's error.
    void wait_connected();
    // Starts the units, with times counted from `origin` (steady clock).
    void go(Picoseconds origin);

    // The run was interrupted: the thread's units start nothing new (Node::end_now).
    void end_now() { end_now_.store(true, std::memory_order_release); }
    bool finished() const { return finished_.load(std::memory_order_acquire); }
    std::optional<std::string> failure() const;
    ProgressCounts progress() const;
    // Ends the run on this thread (its units count what is in flight as missing) and joins it.
    void stop();
    // After stop().
    const NodeStats& stats() const { return node_->stats(); }

private:
    void run();
    void publish();

    Setup setup_;
    std::unique_ptr<Node> node_; // declared before the transport: it is closed first
    std::unique_ptr<Transport> transport_;
    UnitsOfRank units_;
    Reactor reactor_;
    std::promise<RankPlacement> placed_;
    std::promise<std::vector<std::string>> addresses_;
    std::promise<void> connected_;
    std::promise<std::optional<Picoseconds>> go_; // nullopt: the rank gave up before the start
    bool addresses_given_ = false, go_given_ = false;
    std::future<RankPlacement> placed_future_;
    std::future<void> connected_future_;
    std::atomic<bool> finished_{false}, stopping_{false}, failed_{false}, end_now_{false};
    std::atomic<std::uint64_t> bytes_in_{0}, bytes_out_{0}, events_{0}, in_flight_{0}, built_bytes_{0};
    mutable std::mutex failure_mutex_;
    std::optional<std::string> failure_;
    std::thread thread_;
};

// The thread slot of this rank's endpoint `endpoint` among the endpoints of its host, the host's
// ranks being consecutive (local_rank 0 first), as mpirun, srun and --launch-local place them.
ThreadSlot thread_slot(const Layout& layout, std::uint32_t rank, std::uint32_t local_rank, std::uint32_t local_ranks,
                       std::uint32_t endpoint);

// The units of `all` that sit on `which`, moved out (pools stay with `all`).
UnitsOfRank take_units(UnitsOfRank& all, const RankUnits& which);

// The pools a list of units registers.
std::vector<MemoryPool*> pools_of(const UnitsOfRank& units);

} // namespace evb
