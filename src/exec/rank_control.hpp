// The run's control plane, as one rank of a distributed run sees it between the start and the
// finish (src/control carries its messages): each rank says when it is done, rank 0 finishes the
// run once every rank is, beats and losses go round (--heartbeat, --on-failure continue), the
// progress lines are summed at rank 0, an interrupt reaches every rank, rank 0 ends the run once
// its rate is known (--until steady), and the deadline ends a run that does not finish. `tick` is one turn of it; the run loop calls it every millisecond.
#pragma once
#include "control/bootstrap.hpp"
#include "exec/run_config.hpp"
#include "exec/endpoint_thread.hpp"
#include "core/heartbeat.hpp"
#include "exec/node.hpp"
#include "exec/progress_counts.hpp"
#include "exec/run_observer.hpp"
#include "exec/steady_ranks.hpp"
#include "control/world.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace evb {

// This rank as a whole: its first endpoint on the loop's thread, the others on their own
// threads (--threads per-unit).
class RankEndpoints {
public:
    RankEndpoints(Node& node, const std::vector<std::unique_ptr<EndpointThread>>& threads, const Layout& layout)
        : node_(node), threads_(threads), layout_(layout) {}
    bool finished() const;
    std::optional<std::string> failure() const;
    ProgressCounts progress() const; // cumulative counts, for progress lines
    // A lost rank is each of its endpoints lost. failed_at: when it fell silent (-1: unknown).
    void lose_rank(std::uint32_t rank, const std::string& how, Picoseconds failed_at = Picoseconds(-1), LossNews news = LossNews::seen);
    void end_now();
    const Layout& layout() const { return layout_; }

private:
    Node& node_;
    const std::vector<std::unique_ptr<EndpointThread>>& threads_;
    const Layout& layout_;
};

class RankControl {
public:
    RankControl(const Config& config, const World& world, Bootstrap& boot, RunObserver& observer, RankEndpoints& rank);
    // One turn: a failure of this rank's endpoints, "done", a beat, the messages that came, the
    // ranks gone silent, progress, the deadline.
    void tick(Picoseconds now);
    // Interrupted (Ctrl-C, SIGTERM) here or told so: the units start nothing new, as at the
    // duration's end, and the run drains within the grace period. tell: pass it on (rank 0 to
    // every rank, another rank to rank 0).
    void end_now(int signal, Picoseconds now, bool tell);
    void fail(std::string why) { failure_ = std::move(why); }
    // --until steady, at rank 0: what the ranks' counts say of the rate.
    std::optional<SteadyVerdict> steady_verdict() const { return steady_ ? std::optional(steady_->verdict()) : std::nullopt; }

    bool finish() const { return finish_; } // every rank done (rank 0 said so)
    const std::optional<std::string>& failure() const { return failure_; }
    bool fenced() const { return fenced_; } // rank 0 declared this rank lost
    int interrupted() const { return interrupted_; } // the signal that ended the run early
    Picoseconds deadline() const { return deadline_; }
    bool lost(std::uint32_t rank) const { return lost_[rank]; }
    std::uint32_t lost_count() const { return lost_count_; }

private:
    void handle(const Bootstrap::Incoming& in, Picoseconds now);
    void say_done_and_beat(Picoseconds now);
    void find_the_silent(Picoseconds now);
    void report_progress(Picoseconds now);
    // The units start nothing new, as at --duration's end, and the run drains within the grace period.
    void wind_down(Picoseconds now);
    // Rank 0 learned that rank r is gone: it no longer waits for it, and tells every survivor
    // (a heartbeat loss is seen by no transport). Without --on-failure continue the run ends.
    void rank_lost(std::uint32_t r, const std::string& how, Picoseconds failed_at = Picoseconds(-1));
    void mark_done(std::uint32_t r);

    const Config& config_;
    const World& world_;
    Bootstrap& boot_;
    RunObserver& observer_;
    RankEndpoints& rank_;
    const bool root_;

    // Rank 0's view of everyone's progress, from the latest record of each rank.
    std::vector<ProgressCounts> board_;
    std::vector<bool> done_, lost_;
    std::uint32_t done_count_ = 0, lost_count_ = 0;
    // Rank 0 hears from every rank at least every beat period (progress, done or a beat); one
    // silent for --heartbeat is lost. Rank 0 beats to every rank too: a rank that no longer
    // hears it (stopped or hung, its connections open) ends the run, as on rank 0's loss.
    Heartbeat heartbeat_;
    bool sent_done_ = false, finish_ = false;
    // Losses this rank has been told of by rank 0. A loss may hand a finished rank new work (a
    // lost BU's events), so rank 0 forgets who was done and counts only "done" sent after the
    // rank heard of every loss so far.
    std::uint32_t losses_heard_ = 0;
    std::optional<std::string> failure_;
    bool fenced_ = false; // it ends at once and says nothing more
    int interrupted_ = 0;
    bool winding_down_ = false; // interrupted or steady: nothing new starts
    Picoseconds deadline_;
    // Rank 0 prints a line every interval; every rank takes its counts ten times as often, as the
    // record of that period (numbered from the start): the others send theirs to rank 0, so that
    // a line counts every rank's work up to a tenth of an interval before its time.
    const Picoseconds record_period_;
    Picoseconds next_record_, next_line_;
    std::optional<SteadyRanks> steady_; // rank 0, --until steady
};

} // namespace evb
