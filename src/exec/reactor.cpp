#include "exec/reactor.hpp"

#include <poll.h>
#include <sched.h>

namespace evb {

std::size_t Reactor::run_once(Picoseconds now) {
    std::size_t work = 0;
    for (Node* node : nodes_) {
        node->set_now(now);
        std::size_t n = node->transport().poll(completions_);
        for (std::size_t i = 0; i < n; ++i) node->dispatch(completions_[i]);
        work += n;
        node->run_due_timers();
        work += node->retry_pending();
    }
    if (work) idle_since_ = Picoseconds::max();
    return work;
}

void Reactor::idle(Picoseconds now, Picoseconds max) {
    if (!may_idle()) return;
    if (idle_since_ == Picoseconds::max()) idle_since_ = now;
    if (mode_ == PollMode::adaptive && now - idle_since_ < adaptive_spin) return;
    fds_.clear();
    switch (nodes_.front()->transport().prepare_wait(fds_)) {
    case Transport::WaitPlan::poll_again: return;
    case Transport::WaitPlan::yield: sched_yield(); return;
    case Transport::WaitPlan::sleep: break;
    }
    if (fds_.empty()) max = std::min(max, nap); // no wait object: nothing would wake it
    const std::int64_t ns = std::max<std::int64_t>(max.count() / 1000, 0);
    const timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    pollfds_.clear();
    for (int fd : fds_) pollfds_.push_back(pollfd{fd, POLLIN, 0});
    (void)ppoll(pollfds_.data(), pollfds_.size(), &timeout, nullptr); // EINTR (a signal): the loop looks again
}

bool Reactor::all_finished() const {
    for (const Node* node : nodes_)
        if (!node->finished()) return false;
    return true;
}

std::optional<std::string> Reactor::failure() const {
    for (const Node* node : nodes_)
        if (node->failure()) return node->failure();
    return std::nullopt;
}

Picoseconds Reactor::next_timer() const {
    Picoseconds next = Picoseconds::max();
    for (const Node* node : nodes_) next = std::min(next, node->next_timer());
    return next;
}

ProgressCounts Reactor::progress() const {
    ProgressCounts sum; // a halted node's counts too: what it moved before it stopped was moved, and the sum never falls
    for (const Node* node : nodes_) {
        ProgressCounts p = ProgressCounts::of(node->stats());
        if (node->halted()) p.in_flight = 0;
        sum += p;
    }
    return sum;
}

NodeStats Reactor::totals() const {
    NodeStats sum;
    for (const Node* node : nodes_)
        if (!node->halted()) sum.merge(node->stats());
    return sum;
}

} // namespace evb
