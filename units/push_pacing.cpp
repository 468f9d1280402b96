#include "units/push_pacing.hpp"

namespace evb {

PushPacing::PushPacing(Readout& ru, std::uint32_t builders, std::uint32_t credits)
    : ru_(ru), queues_(builders, RingQueue<FragmentJob>(credits)), lost_(builders, false) {}

void PushPacing::assign(Context& ctx, const FragmentJob& job) {
    queues_[job.bu].push(job);
    ++pending_;
    pump(ctx);
}

void PushPacing::end(Context& ctx) {
    ended_ = true;
    pump(ctx);
}

void PushPacing::bu_lost(Context& ctx, std::uint32_t bu) {
    lost_[bu] = true;
    auto& queue = queues_[bu];
    while (!queue.empty()) {
        queue.pop();
        --pending_;
    }
    after_loss(ctx);
}

FragmentJob PushPacing::take(std::uint32_t bu) {
    auto& queue = queues_[bu];
    FragmentJob job = queue.front();
    queue.pop();
    --pending_;
    return job;
}

ScheduleCursor::ScheduleCursor(Readout& ru, const Schedule& schedule, std::uint32_t self, std::uint32_t builders, std::uint32_t credits)
    : PushPacing(ru, builders, credits), schedule_(schedule), self_(self), order_(builders) {
    schedule_.order(self_, round_, order_);
}

void ScheduleCursor::pump(Context& ctx) {
    while (ru_.window_open()) {
        const std::optional<FragmentJob> job = next();
        if (!job) return;
        const auto block = ru_.buffer();
        if (!block) {
            ru_.wait_for_buffer(*job);
            return;
        }
        ru_.send(ctx, *job, *block);
    }
}

std::optional<FragmentJob> ScheduleCursor::next() {
    if (pending() == 0) return std::nullopt;
    const std::uint32_t n = builders();
    // Passing BUs, the cursor may wrap into a new round's order mid-scan: 2N steps always
    // include one whole permutation, so no BU with pending work is passed over for good.
    for (std::uint32_t tried = 0; tried < 2 * n; ++tried) {
        if (order_round_ != round_) {
            schedule_.order(self_, round_, order_);
            order_round_ = round_;
        }
        const std::uint32_t bu = order_[cursor_];
        if (empty(bu) && !done_with(bu)) return std::nullopt; // waits for its work
        if (++cursor_ == n) {
            cursor_ = 0;
            ++round_;
        }
        if (!empty(bu)) return take(bu);
    }
    return std::nullopt;
}

TimeWindowPacing::TimeWindowPacing(Readout& ru, const TimeWindows& windows, std::uint32_t self, std::uint32_t builders,
                                   std::uint32_t credits)
    : PushPacing(ru, builders, credits), windows_(windows), self_(self) {}

void TimeWindowPacing::pump(Context& ctx) {
    const Picoseconds now = ctx.now();
    const TimeWindows::Window w = windows_.at(now);
    if (now < w.end) {
        const std::uint32_t bu = TimeWindows::peer(self_, w.phase, builders());
        while (!empty(bu) && ru_.window_open()) {
            const std::optional<Picoseconds> done = windows_.fit(w, busy_until_);
            if (!done) break; // would spill into the idle window
            const auto block = ru_.buffer();
            if (!block) break; // buffers come back with write completions
            busy_until_ = *done;
            const FragmentJob job = take(bu);
            ctx.log().trace("RU {} a2a phase {} window {}-{} ps posts event {} to BU {} at {} ps", self_, w.phase, w.start.count(),
                            w.end.count(), job.event, job.bu, now.count());
            ru_.send(ctx, job, *block);
        }
    }
    if (pending() > 0 && timer_ != w.next) { // no timer without work: a run must be able to end
        timer_ = w.next;
        ctx.arm_timer(w.next, 1);
    }
}

void TimeWindowPacing::on_timer(Context& ctx) {
    timer_ = Picoseconds(0);
    pump(ctx);
}

} // namespace evb
