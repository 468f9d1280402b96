// barrel-sync's pacing of a BU (DAQPIPE's synchronised barrel shift, thesis 3.2.2): requests go
// out one phase at a time. In phase p every event under way asks RU (self + p) mod N, the barrel
// shift's order; the BU enters phase p + 1 once its transfers of phase p are in and every other
// BU has said the same (PhaseBarrier). The BU keeps its slots and sends the requests; this part
// decides when and to which RU.
#pragma once
#include "scheduling/barrel_shift.hpp"
#include "units/context.hpp"
#include "units/message.hpp"
#include "units/phase_barrier.hpp"

#include <cstdint>
#include <vector>

namespace evb {

class BarrelSyncPacer {
public:
    // What the pacer asks of the BU it paces.
    class Builder {
    public:
        // The slot's event is under way and has RUs left to ask.
        virtual bool has_step_left(std::uint32_t slot) const = 0;
        // Ask `ru` for the slot's fragment (its next step).
        virtual void request(Context& ctx, std::uint32_t slot, std::uint32_t ru) = 0;
        // Nothing more to build: every event it will get is built.
        virtual bool done_building() const = 0;

    protected:
        ~Builder() = default;
    };

    BarrelSyncPacer(Builder& bu, std::uint32_t self, std::uint32_t builders, std::uint32_t sources, std::uint32_t slots);

    // The BU starts: phase 0 begins.
    void start(Context& ctx);
    // An event was given to `slot`: it joins the phase under way if this BU has not reported that
    // phase done (it then has nothing else in it), else the next one.
    void event_begun(Context& ctx, std::uint32_t slot);
    // One of the requests of the current phase is in (call pump() once the BU has done with it).
    void transfer_in() { --outstanding_; }
    // A phase_done message from another BU.
    void on_phase_done(Context& ctx, const Message& msg);
    // After every entry point: report the phase once its transfers are in, report finishing, and
    // move on while the barrier lets it.
    void pump(Context& ctx);

    std::uint64_t phase() const { return barrier_.phase(); }

private:
    void enter_phase(Context& ctx);
    bool any_step_left() const;
    std::uint32_t ru_of_phase() const { return shifted_peer(self_, barrier_.phase(), sources_); }

    Builder& bu_;
    std::uint32_t self_, sources_;
    PhaseBarrier barrier_;
    std::vector<std::uint64_t> start_phase_; // per slot: the phase of its event's first request
    bool phase_entered_ = false;
    std::uint32_t outstanding_ = 0; // requests of the current phase not yet in
};

} // namespace evb
