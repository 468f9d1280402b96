#include "readout_unit.hpp"

#include <algorithm>

namespace evb {

ReadoutUnit::ReadoutUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool)
    : setup_(setup), index_(index), pool_(pool), writer_(setup.config, index, setup.sizer.max_size(), pool),
      slot_stride_(setup.config.fragment_stride()), waiting_(std::size_t{2} * setup.config.credits * setup.config.parallel),
      track_classes_(setup.config.survives_failures() && setup.config.protocol == Protocol::pull_no_em),
      delivered_(track_classes_ ? setup.config.bu_count() : 0), block_job_(track_classes_ ? pool.blocks() : 0) {
    if (setup_.config.scheduling == Scheduling::a2a) a2a_windows_ = setup_.config.a2a_windows();
    if (setup_.config.protocol == Protocol::push) {
        push_pending_.assign(setup_.config.bu_count(), RingQueue<Job>(setup_.config.credits));
        push_order_.resize(setup_.config.bu_count());
        push_lost_.assign(setup_.config.bu_count(), false);
        setup_.schedule.order(index_, push_round_, push_order_);
    }
}

void ReadoutUnit::on_start(Context&) {}

void ReadoutUnit::on_message(Context& ctx, const Message& msg) {
    if (msg.type == MessageType::request) {
        Job job{msg.event, msg.from_index, msg.slot, msg.rkey, msg.offset};
        if (auto block = pool_.acquire())
            serve(ctx, job, *block);
        else
            waiting_.push(job);
    } else if (msg.type == MessageType::push_assign && msg.peer_index < push_pending_.size()) {
        std::uint64_t offset = msg.offset + std::uint64_t{index_} * slot_stride_;
        push_pending_[msg.peer_index].push({msg.event, msg.peer_index, msg.slot, msg.rkey, offset});
        ++push_jobs_;
        pump(ctx);
    } else if (msg.type == MessageType::end && !push_pending_.empty()) {
        push_ended_ = true;
        pump(ctx);
    } else {
        ++ctx.stats().errors.unexpected;
    }
}

void ReadoutUnit::serve(Context& ctx, const Job& job, std::uint32_t block) {
    ++fragments_outstanding_;
    if (track_classes_) {
        block_job_[block] = job;
        delivered_.asked(static_cast<std::uint32_t>(job.event % setup_.config.bu_count()), job.event / setup_.config.bu_count());
    }
    writer_.write(ctx, {Role::builder, job.bu}, block, job.event, setup_.sizer.size(job.event, index_), job.rkey, job.offset, job.slot);
}

void ReadoutUnit::on_completion(Context& ctx, const WriteCompletion& c) {
    auto block = writer_.done(ctx, c);
    if (!block) return;
    --fragments_outstanding_;
    if (track_classes_ && !c.dropped) {
        const Job& job = block_job_[*block];
        delivered_.written(static_cast<std::uint32_t>(job.event % setup_.config.bu_count()), job.event / setup_.config.bu_count());
    }
    pool_.release(*block);
    if (!waiting_.empty()) {
        Job job = waiting_.front();
        waiting_.pop();
        serve(ctx, job, *pool_.acquire());
    }
    if (!push_pending_.empty()) pump(ctx);
}

// PUSH: the RU walks the BUs in its schedule order and sends the oldest pending fragment for the
// BU under the cursor, keeping at most `parallel` fragments in flight. It waits at a BU that has
// no work yet, as a barrel shift must: with barrel order the RUs then write to distinct BUs at
// every step (a permutation), where passing it let every RU follow the BU that got work first.
void ReadoutUnit::pump(Context& ctx) {
    if (setup_.config.scheduling == Scheduling::a2a) return pump_a2a(ctx);
    Job job;
    while (fragments_outstanding_ < setup_.config.parallel && next_push_job(job)) {
        auto block = pool_.acquire();
        if (!block) {
            waiting_.push(job);
            return;
        }
        serve(ctx, job, *block);
    }
}

bool ReadoutUnit::next_push_job(Job& job) {
    if (push_jobs_ == 0) return false;
    const auto n = static_cast<std::uint32_t>(push_pending_.size());
    // Passing BUs, the cursor may wrap into a new round's order mid-scan: 2N steps always
    // include one whole permutation, so no BU with pending work is passed over for good.
    for (std::uint32_t tried = 0; tried < 2 * n; ++tried) {
        if (push_order_round_ != push_round_) {
            setup_.schedule.order(index_, push_round_, push_order_);
            push_order_round_ = push_round_;
        }
        const std::uint32_t bu = push_order_[push_cursor_];
        auto& queue = push_pending_[bu];
        if (queue.empty() && !push_ended_ && !push_lost_[bu]) return false;   // waits for its work
        if (++push_cursor_ == n) {
            push_cursor_ = 0;
            ++push_round_;
        }
        if (!queue.empty()) {
            job = queue.front();
            queue.pop();
            --push_jobs_;
            return true;
        }
    }
    return false;
}

void ReadoutUnit::pump_a2a(Context& ctx) {
    const Config& c = setup_.config;
    const TimeWindows& windows = *a2a_windows_;
    const Picoseconds now = ctx.now();
    const TimeWindows::Window w = windows.at(now);
    if (now < w.end) {
        auto& queue = push_pending_[TimeWindows::peer(index_, w.phase, static_cast<std::uint32_t>(push_pending_.size()))];
        while (!queue.empty() && fragments_outstanding_ < c.parallel) {
            const std::optional<Picoseconds> done = windows.fit(w, a2a_busy_until_);
            if (!done) break;               // would spill into the idle window
            auto block = pool_.acquire();
            if (!block) break;              // buffers come back with write completions
            a2a_busy_until_ = *done;
            Job job = queue.front();
            queue.pop();
            --push_jobs_;
            ctx.log().trace("RU {} a2a phase {} window {}-{} ps posts event {} to BU {} at {} ps", index_, w.phase, w.start.count(),
                            w.end.count(), job.event, job.bu, now.count());
            serve(ctx, job, *block);
        }
    }
    const bool pending = push_jobs_ > 0;
    if (pending && a2a_timer_ != w.next) {   // no timer without work: a run must be able to end
        a2a_timer_ = w.next;
        ctx.arm_timer(w.next, 1);
    }
}

void ReadoutUnit::on_timer(Context& ctx, TimerId) {
    a2a_timer_ = Picoseconds(0);
    pump_a2a(ctx);
}

// Work for a lost BU is dropped; its writes in flight come back as dropped completions.
void ReadoutUnit::on_unit_lost(Context& ctx, UnitAddress lost) {
    if (lost.role != Role::builder) return;
    if (track_classes_ && std::find(lost_bus_.begin(), lost_bus_.end(), lost.index) == lost_bus_.end()) {
        lost_bus_.push_back(lost.index);
        Message m{};
        m.type = MessageType::takeover;
        m.peer_index = lost.index;
        m.event = delivered_.below(lost.index);
        m.count = delivered_.asked_below(lost.index);
        for (std::uint32_t bu = 0; bu < setup_.config.bu_count(); ++bu)
            if (std::find(lost_bus_.begin(), lost_bus_.end(), bu) == lost_bus_.end()) ctx.send({Role::builder, bu}, m);
    }
    for (std::size_t n = waiting_.size(); n > 0; --n) {
        Job job = waiting_.front();
        waiting_.pop();
        if (job.bu != lost.index) waiting_.push(job);
    }
    if (lost.index < push_pending_.size()) {
        push_lost_[lost.index] = true;
        auto& queue = push_pending_[lost.index];
        while (!queue.empty()) {
            queue.pop();
            --push_jobs_;
        }
        if (setup_.config.scheduling != Scheduling::a2a) pump(ctx);   // the cursor may wait at it
    }
}

void ReadoutUnit::on_stop(Context& ctx, bool) {
    // In eq. 3.1's terms: whole fragments, even where only their headers sit in memory.
    ctx.stats().peak_ru_bytes = std::uint64_t{pool_.peak_in_use()} * setup_.config.wire_fragment_stride();
}

} // namespace evb
