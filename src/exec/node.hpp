// One rank's share of a run: the units it hosts (any list: RU, BU, EM, or micro-benchmark units),
// their contexts and timers, the registration of their pools, and per peer the posts the
// transport could not take yet (retried in order, so units never see "no resource", and a full
// queue towards one peer never holds back the others). The executor feeds it time, completions
// and timer ticks.
#pragma once
#include "units/run_units.hpp"
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <spdlog/logger.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace evb {

// How a rank learned of a loss: it saw it itself, or rank 0 told it.
enum class LossNews { seen, told };

class Node {
public:
    Node(UnitsOfRank units, const Layout& layout, Transport& transport, spdlog::logger& log);
    ~Node();

    std::uint32_t rank() const { return rank_; }
    Transport& transport() { return transport_; }
    // The run's clock here; the statistics' window opens once it reaches the warm-up's end.
    void set_now(Picoseconds now) {
        now_ = now;
        if (!window_open_ && now_ >= hosted_.count_from) open_window();
    }
    Picoseconds now() const { return now_; }

    void start();
    // The run was interrupted: every unit here starts nothing new, as at the end of --duration
    // (Unit::on_end_now); once only.
    void end_now();
    bool ended_now() const { return ended_now_; }
    void dispatch(const Completion& c);
    void run_due_timers();
    Picoseconds next_timer() const;
    std::size_t retry_pending();
    // True once every unit here will initiate nothing more and nothing waits to be posted.
    bool finished() const;
    // Ends the run here; counts what is still in flight as missing unless the run was cut.
    void stop(bool in_flight_is_missing = true);

    // --on-failure continue: a lost peer is dropped and its units' loss told to the units here,
    // instead of ending the run (the EM's loss still ends it).
    void survive_failures(bool on) { survive_ = on; }
    // `rank` is gone (its connection broke, a post to it failed, it missed its heartbeat, or the
    // simulator failed it): nothing more is taken from it or posted to it; writes to it in flight
    // finish as dropped. Ends the run unless surviving.
    // failed_at: when it failed, where known (the simulator's injection, the heartbeat's last
    // word). A loss rank 0 told of (LossNews::told) is not recorded here: rank 0's record is the
    // loss, and this rank's would be a later sighting that its own clock may place earlier.
    void lose_rank(std::uint32_t rank, const std::string& how, Picoseconds failed_at = Picoseconds(-1), LossNews news = LossNews::seen);
    // The one line for a rank lost to a run that cannot survive it, whoever noticed first: its
    // transport (lose_rank) or the control plane (its control connection, its heartbeat).
    static std::string lost_connection_line(std::uint32_t rank, const std::string& how);
    // A peer_lost completion's reason without the rank its driver put first: the lines name it.
    static std::string loss_reason(const Completion& c);
    bool is_lost(std::uint32_t rank) const;
    // The simulator's injected failure of this rank: it takes and posts nothing more, counts as
    // finished, and its statistics die with it.
    void halt() { halted_ = true; }
    bool halted() const { return halted_; }

    // What the units counted in the window: from the end of --warmup on, or from the start when
    // the run ended before it (stats().counted_from says which).
    const NodeStats& stats() const { return stats_; }
    // Set when a connection broke or a post failed: the run must end with this message.
    const std::optional<std::string>& failure() const { return failure_; }

private:
    class UnitContext;
    struct PendingPost {
        bool is_write = false;
        std::uint32_t peer = 0;
        CommandBytes command{};
        WriteRequest write; // its cookie is the node's write id (see writes_)
    };
    struct Timer {
        Picoseconds at;
        std::size_t unit;
        TimerId id;
    };
    // A write in flight: which unit posted it to which peer, and the cookie it gave. A write to a
    // lost peer is retired: its unit hears it dropped (deliver_dropped), once, and its id is
    // reused only when both that and the transport's own completion, if any, have happened, in
    // whichever order they come (a completion of the same poll batch can beat the delivery).
    struct OutstandingWrite {
        enum class State : std::uint8_t {
            free,
            in_flight,
            retired, // the unit is still to hear it dropped; the transport's completion is still to come
            retired_done, // the unit is still to hear it dropped; the transport's completion came
            told, // the unit heard it dropped; the transport's completion is still to come
        };
        std::size_t unit = 0;
        std::uint64_t cookie = 0;
        std::uint32_t peer = 0;
        State state = State::free;
    };

    void open_window();
    void post(const PendingPost& p);
    bool try_post(const PendingPost& p);
    void fail(std::string message);
    std::uint64_t track_write(std::size_t unit, std::uint32_t peer, std::uint64_t cookie);
    void retire_write(std::uint64_t id);
    void remove_backlog(std::size_t i);
    std::size_t deliver_dropped();
    const MemoryRegion& region_of(const MemoryPool& pool) const;
    Unit* unit_for(Role role, std::size_t* index);

    const Layout& layout_;
    Transport& transport_;
    spdlog::logger& log_;
    std::uint32_t rank_;
    Picoseconds now_{};
    NodeStats stats_;
    UnitsOfRank hosted_;
    std::vector<std::unique_ptr<UnitContext>> contexts_; // one per hosted unit
    std::vector<std::pair<const MemoryPool*, MemoryRegion>> regions_;
    std::size_t write_target_ = SIZE_MAX; // the unit peers' writes land in
    // Peers with posts waiting, each with its own queue in post order. Usually none or a few, so
    // a list (not an array over every peer: a simulated run hosts thousands of nodes).
    struct Backlog {
        std::uint32_t peer = 0;
        RingQueue<PendingPost> posts;
    };
    std::vector<Backlog> backlogs_;
    std::vector<RingQueue<PendingPost>> spare_queues_; // emptied queues, reused without allocating
    std::vector<OutstandingWrite> writes_;
    std::vector<std::uint64_t> free_writes_;
    std::vector<Timer> timers_; // few: a linear scan beats a heap
    std::optional<std::string> failure_;
    bool survive_ = false;
    bool halted_ = false;
    bool ended_now_ = false;
    bool window_open_ = false;
    std::vector<std::uint32_t> lost_; // few: a list, not a flag per peer
    RingQueue<std::uint64_t> dropped_{0}; // retired write ids whose dropped completion is due
    std::vector<std::pair<std::uint32_t, std::string>> failed_peers_; // posts failed: lost at the next retry
};

} // namespace evb
