// The EM: consumes BU credits by assigning event ids, one per credit, in order. For PUSH it also
// tells every RU where the event goes. Stops on --events or --duration and then tells each BU how
// many events it was given, so BUs know when they are done.
// With --on-failure continue it also remembers which event each BU slot holds until the slot's
// credit comes back (the event is built): a lost BU's unreported events go to the next credits of
// survivors, before any new event, and the run ends once every assigned event is reported built.
#pragma once
#include "core/ring_queue.hpp"
#include "units/unit.hpp"

#include <vector>

namespace evb {

class EventManager final : public Unit {
public:
    explicit EventManager(const UnitSetup& setup);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    void on_timer(Context& ctx, TimerId id) override;
    void on_end_now(Context& ctx) override { stop(ctx); }
    void on_unit_lost(Context& ctx, UnitAddress lost) override;
    bool finished() const override;

    std::uint64_t assigned() const { return next_event_; }
    std::uint32_t outstanding_credits(std::uint32_t bu) const { return outstanding_[bu]; }
    // --on-failure continue: events assigned and not yet reported built.
    std::uint64_t unreported() const { return unreported_; }

private:
    static constexpr std::uint64_t no_event = UINT64_MAX;
    void assign(Context& ctx, const Message& credit, std::uint64_t event, bool reassigned);
    // A credit of a live BU: a re-assigned event first, then a new one, else (stopped) kept.
    void use_credit(Context& ctx, const Message& credit);
    void reassign_to_kept_credits(Context& ctx);
    void stop(Context& ctx);
    void send_end(Context& ctx, std::uint32_t bu);

    const UnitConfig& config_;
    std::uint32_t nodes_; // BUs
    std::uint64_t next_event_ = 0;
    bool stopped_ = false;
    std::vector<std::uint32_t> outstanding_; // credits announced and not yet built, per BU
    std::vector<std::uint64_t> assigned_per_bu_;
    // --on-failure continue
    bool survive_;
    std::vector<std::uint64_t> held_; // BU x credit: the event the slot holds, or no_event
    std::vector<std::uint64_t> reported_; // per BU: events reported built (credits back)
    std::vector<bool> lost_; // per BU
    std::vector<RingQueue<Message>> kept_; // per BU: credits not used (after the stop)
    RingQueue<std::uint64_t> reassign_; // events of lost BUs waiting for a credit
    std::uint64_t unreported_ = 0;
};

} // namespace evb
