#include "units/pull_requester.hpp"

#include "scheduling/barrel_shift.hpp"

#include <algorithm>
#include <span>

namespace evb {

PullRequester::PullRequester(Builder& bu, const Schedule& schedule, const Shape& shape)
    : bu_(bu), schedule_(schedule), shape_(shape), walks_(shape.slots),
      closed_form_(schedule.peer_at(shape.self, 0, std::max(shape.sources, 1u), 0).has_value()),
      order_(closed_form_ ? 0 : std::size_t{shape.slots} * shape.sources) {}

void PullRequester::begin(std::uint32_t slot, std::uint64_t event) { walks_[slot] = Walk{event, 0, 0, 0}; }

void PullRequester::walk(Context& ctx, std::uint32_t slot) {
    auto& w = walks_[slot];
    w.rotation = shape_.start == BarrelStart::staggered ? staggered_start(slot, shape_.slots, shape_.sources) : 0;
    if (!closed_form_) {
        std::span<std::uint32_t> order(order_.data() + std::size_t{slot} * shape_.sources, shape_.sources);
        schedule_.order(shape_.self, w.event, order);
        std::rotate(order.begin(), order.begin() + w.rotation, order.end());
    }
    request_more(ctx, slot);
}

std::uint32_t PullRequester::ru_at(std::uint32_t slot, std::uint32_t step) const {
    const Walk& w = walks_[slot];
    if (!closed_form_) return order_[std::size_t{slot} * shape_.sources + step];
    return *schedule_.peer_at(shape_.self, w.event, shape_.sources,
                              static_cast<std::uint32_t>((std::uint64_t{step} + w.rotation) % shape_.sources));
}

void PullRequester::request_more(Context& ctx, std::uint32_t slot) {
    auto& w = walks_[slot];
    while (w.outstanding < shape_.parallel && w.next_step < shape_.sources) {
        const std::uint32_t ru = ru_at(slot, w.next_step);
        if (bu_.ru_lost(ru))
            ++w.next_step; // the BU counts its fragment as missing
        else
            request(ctx, slot, ru);
    }
}

void PullRequester::request(Context& ctx, std::uint32_t slot, std::uint32_t ru) {
    auto& w = walks_[slot];
    ++w.next_step;
    ++w.outstanding;
    ++ctx.stats().in_flight;
    bu_.send_request(ctx, slot, ru);
}

void PullRequester::answered(Context& ctx, std::uint32_t slot) {
    --walks_[slot].outstanding;
    --ctx.stats().in_flight;
}

void PullRequester::forget(Context& ctx, std::uint32_t slot, std::uint32_t ru) {
    const auto& w = walks_[slot];
    bool asked = false; // a scan, but only when an RU is lost
    for (std::uint32_t step = 0; step < w.next_step && !asked; ++step) asked = ru_at(slot, step) == ru;
    if (asked) answered(ctx, slot);
}

} // namespace evb
