// One rank's share of the event builder: the units it hosts, their pools and contexts, their
// timers, and the queue of posts the transport could not take yet (retried in order, so units
// never see "no resource"). The executor feeds it time, completions and timer ticks.
#pragma once
#include "builder_unit.hpp"
#include "event_manager.hpp"
#include "layout.hpp"
#include "memory_pool.hpp"
#include "readout_unit.hpp"
#include "ring_queue.hpp"
#include "transport.hpp"

#include <spdlog/logger.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace evb {

class Node {
public:
    Node(const UnitSetup& setup, const Layout& layout, Transport& transport, spdlog::logger& log);
    ~Node();

    std::uint32_t rank() const { return rank_; }
    Transport& transport() { return transport_; }
    void set_now(Picoseconds now) { now_ = now; }
    Picoseconds now() const { return now_; }

    void start();
    void dispatch(const Completion& c);
    void run_due_timers();
    Picoseconds next_timer() const;
    std::size_t retry_pending();
    // True once every unit here will initiate nothing more.
    bool finished() const;
    // Ends the run here; counts what is still in flight as missing unless the run was cut.
    void stop(bool in_flight_is_missing = true);

    const NodeStats& stats() const { return stats_; }
    // Set when a connection broke or a post failed: the run must end with this message.
    const std::optional<std::string>& failure() const { return failure_; }
    const BuilderUnit* builder() const { return builder_.get(); }
    const EventManager* manager() const { return manager_.get(); }

private:
    class UnitContext;
    struct PendingPost {
        bool is_write = false;
        std::uint32_t peer = 0;
        Message msg{};
        const MemoryRegion* local = nullptr;
        std::size_t local_offset = 0;
        std::uint64_t rkey = 0, remote_offset = 0;
        std::size_t length = 0;
        std::uint32_t imm = 0;
        std::uint64_t cookie = 0;
    };
    struct Timer {
        Picoseconds at;
        Unit* unit;
        UnitContext* ctx;
        TimerId id;
    };

    void post(const PendingPost& p);
    bool try_post(const PendingPost& p);
    void fail(std::string message);
    std::pair<Unit*, UnitContext*> unit_for(Role role);

    const UnitSetup& setup_;
    const Layout& layout_;
    Transport& transport_;
    spdlog::logger& log_;
    std::uint32_t rank_;
    Picoseconds now_{};
    NodeStats stats_;
    std::unique_ptr<MemoryPool> ru_pool_, bu_pool_;
    std::unique_ptr<ReadoutUnit> readout_;
    std::unique_ptr<BuilderUnit> builder_;
    std::unique_ptr<EventManager> manager_;
    std::unique_ptr<UnitContext> ru_ctx_, bu_ctx_, em_ctx_;
    RingQueue<PendingPost> pending_;
    std::vector<Timer> timers_;   // few: a linear scan beats a heap
    std::optional<std::string> failure_;
};

} // namespace evb
