#include "reactor.hpp"

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
    return work;
}

void Reactor::wait(Picoseconds max) {
    if (nodes_.size() == 1) nodes_.front()->transport().wait(max);
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

NodeStats Reactor::totals() const {
    NodeStats sum;
    for (const Node* node : nodes_)
        if (!node->halted()) sum.merge(node->stats());
    return sum;
}

} // namespace evb
