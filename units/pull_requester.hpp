// PULL's requests of a BU (with or without EM): each slot walks its event's visiting order and asks
// one RU per step, at most `parallel` requests out at once; a lost RU is skipped. The order is the
// schedule's: computed per step where it has a closed form (the barrel shift), else drawn once per
// event; --barrel-start staggered rotates where each slot's walk begins. The BU keeps its slots and
// sends each request; this part decides which RU and when. barrel-sync's pacer names the RU itself
// (`request`) and uses only the counting.
#pragma once
#include "units/context.hpp"
#include "scheduling/schedule.hpp"

#include <cstdint>
#include <vector>

namespace evb {

class PullRequester {
public:
    // What the requester asks of the BU it serves.
    class Builder {
    public:
        virtual bool ru_lost(std::uint32_t ru) const = 0;
        // Send the slot's request for its fragment from `ru`.
        virtual void send_request(Context& ctx, std::uint32_t slot, std::uint32_t ru) = 0;

    protected:
        ~Builder() = default;
    };

    struct Shape {
        std::uint32_t self, sources, slots, parallel;
        BarrelStart start;
    };
    PullRequester(Builder& bu, const Schedule& schedule, const Shape& shape);

    // The slot's new event: nothing asked yet, the walk at its first step.
    void begin(std::uint32_t slot, std::uint64_t event);
    // Orders the slot's walk and sends its first requests (all but barrel-sync).
    void walk(Context& ctx, std::uint32_t slot);
    // Requests the next RUs of the walk until `parallel` are out or none is left.
    void request_more(Context& ctx, std::uint32_t slot);
    // One request of the slot's next step to `ru`, counted in flight.
    void request(Context& ctx, std::uint32_t slot, std::uint32_t ru);
    // A requested fragment is in.
    void answered(Context& ctx, std::uint32_t slot);
    // `ru` was lost: a request the slot had sent it is no longer out.
    void forget(Context& ctx, std::uint32_t slot, std::uint32_t ru);
    bool has_step_left(std::uint32_t slot) const { return walks_[slot].next_step < shape_.sources; }
    std::uint32_t outstanding(std::uint32_t slot) const { return walks_[slot].outstanding; }
    // The RU the slot asks at `step` of its walk.
    std::uint32_t ru_at(std::uint32_t slot, std::uint32_t step) const;

private:
    struct Walk {
        std::uint64_t event = 0;
        std::uint32_t next_step = 0; // the step of the next RU to request
        std::uint32_t rotation = 0; // --barrel-start staggered: where the walk begins
        std::uint32_t outstanding = 0; // requests sent, fragment not yet in
    };

    Builder& bu_;
    const Schedule& schedule_;
    Shape shape_;
    std::vector<Walk> walks_; // one per slot
    bool closed_form_; // the schedule computes each step: no stored order
    std::vector<std::uint32_t> order_; // otherwise slots x sources visiting order
};

} // namespace evb
