#include "units/traffic_sender.hpp"

#include <algorithm>
#include <bit>

namespace evb {
namespace {
constexpr TimerId wake_timer = 1;
}

TrafficSender::TrafficSender(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool)
    : setup_(setup), config_(setup.config), index_(index), pool_(pool), pattern_(config_.benchmark, config_.nodes, config_.shift),
      writer_(config_, index, setup.sizer.max_size(), pool), targets_(config_.nodes) {}

std::uint32_t TrafficSender::phase(const Context& ctx) const {
    if (config_.benchmark != Benchmark::shift_scan) return 0;
    std::uint64_t p = config_.phase_messages ? sent_ / config_.phase_messages
                                             : static_cast<std::uint64_t>(ctx.now().count() / config_.phase_time.count());
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(p, config_.nodes));
}

void TrafficSender::on_start(Context& ctx) {
    // Time moves phases and ends the run even while nothing completes.
    if (config_.benchmark == Benchmark::shift_scan && !config_.phase_messages)
        ctx.arm_timer(config_.phase_time, wake_timer);
    else if (config_.duration > Picoseconds(0))
        ctx.arm_timer(config_.duration, wake_timer);
    pump(ctx);
}

void TrafficSender::on_timer(Context& ctx, TimerId id) {
    if (id != wake_timer) return;
    if (config_.benchmark == Benchmark::shift_scan && !config_.phase_messages && phase(ctx) < config_.nodes)
        ctx.arm_timer(config_.phase_time * (phase(ctx) + 1), wake_timer);
    pump(ctx);
}

void TrafficSender::on_end_now(Context& ctx) {
    ended_now_ = true;
    pump(ctx);
}

void TrafficSender::on_message(Context& ctx, const Message& msg) {
    if (msg.type != MessageType::grant || msg.from_index >= targets_.size()) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    Target& t = targets_[msg.from_index];
    if (t.free_slots & msg.count) {
        ++ctx.stats().errors.credit_overflow;
        ctx.log().error("sender {}: receiver {} granted a slot that was already free", index_, msg.from_index);
    }
    t.free_slots |= msg.count;
    t.rkey = msg.rkey;
    t.base = msg.offset;
    pump(ctx);
}

void TrafficSender::pump(Context& ctx) {
    while (!done_sending_ && in_flight_ < config_.in_flight) {
        bool out_of_messages = config_.events && sent_ >= config_.events && config_.benchmark != Benchmark::shift_scan;
        bool out_of_time = ended_now_ ||
            (config_.benchmark != Benchmark::shift_scan && config_.duration > Picoseconds(0) && ctx.now() >= config_.duration);
        auto to = pattern_.target(index_, sent_, phase(ctx));
        if (!to || out_of_messages || out_of_time) {
            done_sending_ = true;
            break;
        }
        if (targets_[*to].free_slots == 0) return; // wait for this target's grant
        send_one(ctx, *to);
    }
    if (done_sending_ && in_flight_ == 0 && !ended_) end(ctx);
}

void TrafficSender::send_one(Context& ctx, std::uint32_t to) {
    Target& t = targets_[to];
    auto slot = static_cast<std::uint32_t>(std::countr_zero(t.free_slots));
    t.free_slots &= t.free_slots - 1;
    std::uint32_t block = *pool_.acquire(); // in_flight blocks for in_flight messages
    std::uint64_t seq = t.sent++;
    writer_.write(ctx, {Role::builder, to}, block, seq, setup_.sizer.size(seq, index_), t.rkey,
                  t.base + std::uint64_t{slot} * config_.fragment_stride(), slot);
    ++sent_;
    ++in_flight_;
    ++ctx.stats().in_flight;
}

void TrafficSender::on_completion(Context& ctx, const WriteCompletion& c) {
    auto block = writer_.done(ctx, c);
    if (!block) return;
    --ctx.stats().in_flight;
    --in_flight_;
    pool_.release(*block);
    pump(ctx);
}

void TrafficSender::end(Context& ctx) {
    ended_ = true;
    for (std::uint32_t r = 0; r < targets_.size(); ++r) {
        Message m{};
        m.type = MessageType::end;
        m.count = targets_[r].sent;
        ctx.send({Role::builder, r}, m);
    }
}

} // namespace evb
