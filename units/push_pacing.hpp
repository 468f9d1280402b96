// PUSH's pacing of an RU: the fragments the EM assigned it, queued per BU, and when and in which
// order they leave. Chosen once from the configuration:
// - ScheduleCursor (barrel shift, random): the RU walks the BUs in its schedule's order and sends
//   the oldest fragment for the BU under the cursor, at most `parallel` in flight. It waits at a
//   BU with nothing assigned yet, as a barrel shift must (with barrel order the RUs then write to
//   distinct BUs at every step, a permutation), unless that BU gets nothing more: it is lost, or
//   the EM has ended the run. Passing it let every RU follow the BU that got work first.
// - TimeWindowPacing (a2a, thesis 3.2.3): in each phase's send window the RU sends to the phase's
//   BU what finishes inside the window at line rate, then waits for the next window (a timer).
// The RU keeps its buffers and writes the fragments; this part decides which fragment and when.
#pragma once
#include "units/context.hpp"
#include "core/ring_queue.hpp"
#include "scheduling/schedule.hpp"
#include "scheduling/time_windows.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace evb {

// A fragment to send: which event, to which BU slot, and where in the BU's region.
struct FragmentJob {
    std::uint64_t event;
    std::uint32_t bu;
    std::uint32_t slot;
    std::uint64_t rkey;
    std::uint64_t offset; // where this RU's fragment goes
};

class PushPacing {
public:
    // What the pacing asks of the RU it paces.
    class Readout {
    public:
        // Fewer than `parallel` fragments in flight.
        virtual bool window_open() const = 0;
        // A free buffer for one more fragment, if any (buffers come back with write completions).
        virtual std::optional<std::uint32_t> buffer() = 0;
        virtual void send(Context& ctx, const FragmentJob& job, std::uint32_t block) = 0;
        // No buffer for `job` now: sent first when one comes back.
        virtual void wait_for_buffer(const FragmentJob& job) = 0;

    protected:
        ~Readout() = default;
    };

    PushPacing(Readout& ru, std::uint32_t builders, std::uint32_t credits);
    virtual ~PushPacing() = default;

    void assign(Context& ctx, const FragmentJob& job);
    // The EM assigns no new events (re-assignments may come).
    void end(Context& ctx);
    // Its queued fragments are dropped and none waits for it.
    void bu_lost(Context& ctx, std::uint32_t bu);
    // After a loss: the cursor may have waited at the lost BU (the windows move on by the clock).
    virtual void after_loss(Context& ctx) { pump(ctx); }
    // Sends what the pacing allows now.
    virtual void pump(Context& ctx) = 0;
    virtual void on_timer(Context& ctx) { pump(ctx); }
    std::uint64_t pending() const { return pending_; }

protected:
    bool empty(std::uint32_t bu) const { return queues_[bu].empty(); }
    // The BU will get nothing more: it is lost, or the run has ended.
    bool done_with(std::uint32_t bu) const { return ended_ || lost_[bu]; }
    FragmentJob take(std::uint32_t bu);
    std::uint32_t builders() const { return static_cast<std::uint32_t>(queues_.size()); }

    Readout& ru_;

private:
    std::vector<RingQueue<FragmentJob>> queues_; // per BU, oldest first
    std::vector<bool> lost_; // per BU
    bool ended_ = false;
    std::uint64_t pending_ = 0; // over all BUs
};

class ScheduleCursor final : public PushPacing {
public:
    ScheduleCursor(Readout& ru, const Schedule& schedule, std::uint32_t self, std::uint32_t builders, std::uint32_t credits);
    void pump(Context& ctx) override;

private:
    std::optional<FragmentJob> next();

    const Schedule& schedule_;
    std::uint32_t self_;
    std::vector<std::uint32_t> order_; // the schedule's order for round order_round_
    std::uint32_t cursor_ = 0;
    std::uint64_t round_ = 0, order_round_ = 0;
};

class TimeWindowPacing final : public PushPacing {
public:
    TimeWindowPacing(Readout& ru, const TimeWindows& windows, std::uint32_t self, std::uint32_t builders, std::uint32_t credits);
    void pump(Context& ctx) override;
    void on_timer(Context& ctx) override;
    void after_loss(Context&) override {}

private:
    TimeWindows windows_;
    std::uint32_t self_;
    Picoseconds busy_until_{}; // when what was posted will have left at line rate
    Picoseconds timer_{}; // the window start a timer is armed for (0: none)
};

} // namespace evb
