#include "units/event_manager.hpp"

namespace evb {
namespace {
constexpr TimerId stop_timer = 1;
}

EventManager::EventManager(const UnitSetup& setup)
    : config_(setup.config), nodes_(setup.config.bu_count()), outstanding_(nodes_, 0), assigned_per_bu_(nodes_, 0),
      survive_(setup.config.survives_failures()) {
    if (!survive_) return;
    held_.assign(std::size_t{nodes_} * config_.credits, no_event);
    reported_.assign(nodes_, 0);
    lost_.assign(nodes_, false);
    kept_.assign(nodes_, RingQueue<Message>(config_.credits));
}

bool EventManager::finished() const { return stopped_ && (!survive_ || (unreported_ == 0 && reassign_.empty())); }

void EventManager::on_start(Context& ctx) {
    if (config_.duration > Picoseconds(0)) ctx.arm_timer(config_.duration, stop_timer);
}

void EventManager::on_timer(Context& ctx, TimerId id) {
    if (id == stop_timer) stop(ctx);
}

void EventManager::on_completion(Context& ctx, const WriteCompletion&) { ++ctx.stats().errors.unexpected; }

void EventManager::on_message(Context& ctx, const Message& msg) {
    if (msg.type != MessageType::credit || msg.from_index >= nodes_ || msg.slot >= config_.credits) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    // A credit returned by a BU means its previous event on that slot is built.
    if (++outstanding_[msg.from_index] > config_.credits) {
        ++ctx.stats().errors.credit_overflow;
        ctx.log().error("BU {} announced more than {} credits", msg.from_index, config_.credits);
    }
    if (!survive_) {
        if (!stopped_) assign(ctx, msg, next_event_++, false);
        return;
    }
    if (lost_[msg.from_index]) return;
    auto& held = held_[std::size_t{msg.from_index} * config_.credits + msg.slot];
    if (held != no_event) {
        held = no_event;
        --unreported_;
        ++reported_[msg.from_index];
    }
    use_credit(ctx, msg);
}

void EventManager::use_credit(Context& ctx, const Message& credit) {
    if (!reassign_.empty()) {
        std::uint64_t event = reassign_.front();
        reassign_.pop();
        assign(ctx, credit, event, true);
        if (stopped_) send_end(ctx, credit.from_index); // its total grew after its end
    } else if (!stopped_) {
        assign(ctx, credit, next_event_++, false);
    } else {
        kept_[credit.from_index].push(credit);
    }
}

void EventManager::assign(Context& ctx, const Message& credit, std::uint64_t event, bool reassigned) {
    std::uint32_t bu = credit.from_index;
    --outstanding_[bu]; // consumed: the BU owns an event on that slot now
    ++assigned_per_bu_[bu];
    if (reassigned)
        ++ctx.stats().events_reassigned;
    else
        ++ctx.stats().events_assigned;
    if (survive_) {
        held_[std::size_t{bu} * config_.credits + credit.slot] = event;
        ++unreported_;
    }

    Message a{};
    a.type = MessageType::assign;
    a.event = event;
    a.slot = credit.slot;
    a.count = reassigned ? 1 : 0;
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

void EventManager::on_unit_lost(Context& ctx, UnitAddress lost) {
    if (!survive_ || lost.role != Role::builder || lost.index >= nodes_ || lost_[lost.index]) return;
    const std::uint32_t bu = lost.index;
    lost_[bu] = true;
    ctx.stats().events_built_by_lost += reported_[bu];
    std::uint32_t reassigned = 0;
    for (std::uint32_t slot = 0; slot < config_.credits; ++slot) {
        auto& held = held_[std::size_t{bu} * config_.credits + slot];
        if (held == no_event) continue;
        reassign_.push(held); // it may have been built and not reported: then it is built again
        held = no_event;
        --unreported_;
        ++reassigned;
    }
    while (!kept_[bu].empty()) kept_[bu].pop();
    outstanding_[bu] = 0;
    ctx.log().info("EM: BU {} lost; {} of its events go to the survivors", bu, reassigned);
    reassign_to_kept_credits(ctx);
}

// After the stop, survivors' credits wait here: the lost BU's events take them at once.
void EventManager::reassign_to_kept_credits(Context& ctx) {
    bool any = true;
    while (!reassign_.empty() && any) {
        any = false;
        for (std::uint32_t bu = 0; bu < nodes_ && !reassign_.empty(); ++bu) {
            if (kept_[bu].empty()) continue;
            Message credit = kept_[bu].front();
            kept_[bu].pop();
            use_credit(ctx, credit);
            any = true;
        }
    }
}

void EventManager::stop(Context& ctx) {
    if (stopped_) return;
    stopped_ = true;
    for (std::uint32_t bu = 0; bu < nodes_; ++bu)
        if (!survive_ || !lost_[bu]) send_end(ctx, bu);
    if (config_.protocol == Protocol::push) { // no new work: an RU's cursor may pass BUs without any
        Message e{};
        e.type = MessageType::end;
        for (std::uint32_t ru = 0; ru < config_.ru_count(); ++ru) ctx.send({Role::readout, ru}, e);
    }
}

void EventManager::send_end(Context& ctx, std::uint32_t bu) {
    Message e{};
    e.type = MessageType::end;
    e.count = assigned_per_bu_[bu];
    ctx.send({Role::builder, bu}, e);
}

} // namespace evb
