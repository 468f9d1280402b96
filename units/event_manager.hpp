// The EM: consumes BU credits by assigning event ids, one per credit, in order. For PUSH it also
// tells every RU where the event goes. Stops on --events or --duration and then tells each BU how
// many events it was given, so BUs know when they are done.
#pragma once
#include "unit.hpp"

#include <vector>

namespace evb {

class EventManager final : public Unit {
public:
    explicit EventManager(const UnitSetup& setup);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    void on_timer(Context& ctx, TimerId id) override;
    bool finished() const override { return stopped_; }

    std::uint64_t assigned() const { return next_event_; }
    std::uint32_t outstanding_credits(std::uint32_t bu) const { return outstanding_[bu]; }

private:
    void assign(Context& ctx, const Message& credit);
    void stop(Context& ctx);

    const Config& config_;
    std::uint32_t nodes_;   // BUs
    std::uint64_t next_event_ = 0;
    bool stopped_ = false;
    std::vector<std::uint32_t> outstanding_;      // credits announced and not yet built, per BU
    std::vector<std::uint64_t> assigned_per_bu_;
};

} // namespace evb
