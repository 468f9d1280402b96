#include "event_manager.hpp"

namespace evb {
namespace {
constexpr TimerId stop_timer = 1;
}

EventManager::EventManager(const UnitSetup& setup)
    : config_(setup.config), nodes_(setup.config.bu_count()), outstanding_(nodes_, 0), assigned_per_bu_(nodes_, 0) {}

void EventManager::on_start(Context& ctx) {
    if (config_.duration > Picoseconds(0)) ctx.arm_timer(config_.duration, stop_timer);
}

void EventManager::on_timer(Context& ctx, TimerId id) {
    if (id == stop_timer) stop(ctx);
}

void EventManager::on_completion(Context& ctx, const WriteCompletion&) { ++ctx.stats().errors.unexpected; }

void EventManager::on_message(Context& ctx, const Message& msg) {
    if (msg.type != MessageType::credit || msg.from_index >= nodes_) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    // A credit returned by a BU means its previous event on that slot is built.
    if (++outstanding_[msg.from_index] > config_.credits) {
        ++ctx.stats().errors.credit_overflow;
        ctx.log().error("BU {} announced more than {} credits", msg.from_index, config_.credits);
    }
    if (stopped_) return;
    assign(ctx, msg);
}

void EventManager::assign(Context& ctx, const Message& credit) {
    std::uint32_t bu = credit.from_index;
    std::uint64_t event = next_event_++;
    --outstanding_[bu];   // consumed: the BU owns an event on that slot now
    ++assigned_per_bu_[bu];
    ++ctx.stats().events_assigned;

    Message a{};
    a.type = MessageType::assign;
    a.event = event;
    a.slot = credit.slot;
    ctx.send({Role::builder, bu}, a);
    if (config_.protocol == Protocol::push) {
        Message p{};
        p.type = MessageType::push_assign;
        p.event = event;
        p.slot = credit.slot;
        p.peer_index = bu;
        p.rkey = credit.rkey;
        p.offset = credit.offset;
        for (std::uint32_t ru = 0; ru < config_.ru_count(); ++ru) ctx.send({Role::readout, ru}, p);
    }
    if (config_.events && next_event_ >= config_.events) stop(ctx);
}

void EventManager::stop(Context& ctx) {
    if (stopped_) return;
    stopped_ = true;
    for (std::uint32_t bu = 0; bu < nodes_; ++bu) {
        Message e{};
        e.type = MessageType::end;
        e.count = assigned_per_bu_[bu];
        ctx.send({Role::builder, bu}, e);
    }
}

} // namespace evb
