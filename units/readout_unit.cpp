#include "units/readout_unit.hpp"

#include <algorithm>

namespace evb {

ReadoutUnit::ReadoutUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool)
    : setup_(setup), index_(index), pool_(pool), writer_(setup.config, index, setup.sizer.max_size(), pool),
      slot_stride_(setup.config.fragment_stride()), waiting_(std::size_t{2} * setup.config.credits * setup.config.parallel),
      track_classes_(setup.config.survives_failures() && setup.config.protocol == Protocol::pull_no_em),
      delivered_(track_classes_ ? setup.config.bu_count() : 0), block_job_(track_classes_ ? pool.blocks() : 0) {
    const UnitConfig& c = setup_.config;
    auto& readout = static_cast<PushPacing::Readout&>(*this);
    if (c.protocol == Protocol::push && c.scheduling == Scheduling::a2a)
        push_ = std::make_unique<TimeWindowPacing>(readout, c.a2a_windows(), index, c.bu_count(), c.credits);
    else if (c.protocol == Protocol::push)
        push_ = std::make_unique<ScheduleCursor>(readout, setup_.schedule, index, c.bu_count(), c.credits);
}

bool ReadoutUnit::window_open() const { return fragments_outstanding_ < setup_.config.parallel; }

void ReadoutUnit::on_start(Context&) {}

void ReadoutUnit::on_message(Context& ctx, const Message& msg) {
    if (msg.type == MessageType::request) {
        Job job{msg.event, msg.from_index, msg.slot, msg.rkey, msg.offset};
        if (auto block = pool_.acquire())
            serve(ctx, job, *block);
        else
            waiting_.push(job);
    } else if (msg.type == MessageType::push_assign && push_ && msg.peer_index < setup_.config.bu_count()) {
        std::uint64_t offset = msg.offset + std::uint64_t{index_} * slot_stride_;
        push_->assign(ctx, {msg.event, msg.peer_index, msg.slot, msg.rkey, offset});
    } else if (msg.type == MessageType::end && push_) {
        push_->end(ctx);
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
    if (push_) push_->pump(ctx);
}

void ReadoutUnit::on_timer(Context& ctx, TimerId) {
    if (push_) push_->on_timer(ctx);
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
    if (push_ && lost.index < setup_.config.bu_count()) push_->bu_lost(ctx, lost.index);
}

void ReadoutUnit::on_stop(Context& ctx, bool) {
    // In eq. 3.1's terms: whole fragments, even where only their headers sit in memory.
    ctx.stats().peak_ru_bytes = std::uint64_t{pool_.peak_in_use()} * setup_.config.wire_fragment_stride();
}

} // namespace evb
