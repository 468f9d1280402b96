#include "exec/run_loop.hpp"

#include <algorithm>

namespace evb {

void RunLoop::run() {
    ended_ = false;
    while (!ended_) {
        now_ = steady_now() - origin_;
        const std::size_t work = reactor_.run_once(now_);
        Picoseconds next = Picoseconds::max(); // the next task due
        for (Periodic& p : tasks_) {
            if (p.period > Picoseconds(0)) {
                if (now_ < p.due) {
                    next = std::min(next, p.due);
                    continue;
                }
                p.due = now_ + p.period;
                next = std::min(next, p.due);
            }
            p.task(now_);
            if (ended_) return;
        }
        if (work == 0 && reactor_.may_idle()) reactor_.idle(now_, std::min(next, reactor_.next_timer()) - now_);
    }
}

} // namespace evb
