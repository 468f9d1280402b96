// The loop every real executor runs (one process, a rank, an endpoint's thread): read the clock,
// one reactor pass, then the tasks that are due in the order they were added; after a pass that
// found no work, the reactor's idle policy (--poll) up to the next due task or timer. It runs
// until a task ends it. The simulator has its own loop: its clock is the fabric's events.
#pragma once
#include "exec/reactor.hpp"

#include <functional>
#include <vector>

namespace evb {

class RunLoop {
public:
    using Task = std::function<void(Picoseconds now)>;
    // `origin`: the steady clock's reading that is time zero of the run.
    RunLoop(Reactor& reactor, Picoseconds origin) : reactor_(reactor), origin_(origin) {}
    // `task` runs after every pass (period zero) or after the first pass and then every `period`.
    void every(Picoseconds period, Task task) { tasks_.push_back({period, Picoseconds(0), std::move(task)}); }
    // Ends the loop: the tasks after this one in the same pass do not run.
    void end() { ended_ = true; }
    bool ended() const { return ended_; }
    // Runs until a task ends the loop (again after an end: the tasks decide when to end again).
    void run();
    // The time of the last pass, since the origin.
    Picoseconds now() const { return now_; }

private:
    struct Periodic {
        Picoseconds period, due;
        Task task;
    };
    Reactor& reactor_;
    Picoseconds origin_;
    Picoseconds now_{};
    bool ended_ = false;
    std::vector<Periodic> tasks_;
};

} // namespace evb
