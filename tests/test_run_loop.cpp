// The one loop of the real executors (src/exec/run_loop.hpp): tasks after every pass in the order
// they were added, periodic tasks when due, and an end that skips the rest of its pass; and what
// --poll becomes on a host with more reactor threads than CPUs.
#include "exec/poll_mode.hpp"
#include "exec/run_loop.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using namespace evb;

TEST(RunLoop, TasksRunInTheirOrderAfterEveryPassUntilOneEndsTheLoop) {
    Reactor reactor; // no node: every pass finds no work
    RunLoop loop(reactor, steady_now());
    std::string order;
    int first = 0;
    loop.every(Picoseconds(0), [&](Picoseconds) {
        order += 'a';
        if (++first == 5) loop.end();
    });
    loop.every(Picoseconds(0), [&](Picoseconds) { order += 'b'; });
    loop.run();
    EXPECT_EQ(order, "ababababa"); // the fifth pass ends at its first task
    EXPECT_TRUE(loop.ended());
}

TEST(RunLoop, APeriodicTaskRunsAtTheFirstPassThenWhenDue) {
    Reactor reactor;
    RunLoop loop(reactor, steady_now());
    int passes = 0, hourly = 0;
    std::vector<Picoseconds> seen;
    loop.every(Picoseconds::from_seconds(3600), [&](Picoseconds) { ++hourly; });
    loop.every(Picoseconds(0), [&](Picoseconds now) {
        seen.push_back(now);
        if (++passes == 100) loop.end();
    });
    loop.run();
    EXPECT_EQ(hourly, 1);
    ASSERT_EQ(seen.size(), 100u);
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1], seen[i]);
    EXPECT_EQ(loop.now(), seen.back());
}

TEST(RunLoop, RunAgainAfterAnEndGoesOnUntilTheTasksEndItAgain) {
    Reactor reactor;
    RunLoop loop(reactor, steady_now());
    int calls = 0;
    loop.every(Picoseconds(0), [&](Picoseconds) {
        if (++calls % 3 == 0) loop.end();
    });
    loop.run();
    EXPECT_EQ(calls, 3);
    loop.run();
    EXPECT_EQ(calls, 6);
}

} // namespace

// --poll adaptive gives up its spin where a host's reactor threads outnumber its CPUs; what the
// user chose otherwise stands.
TEST(PollOnHost, AdaptiveSleepsAtOnceOnlyWhereThreadsOutnumberCpus) {
    EXPECT_EQ(poll_on_host(PollMode::adaptive, 5, 2), PollMode::event);
    EXPECT_EQ(poll_on_host(PollMode::adaptive, 2, 2), PollMode::adaptive);
    EXPECT_EQ(poll_on_host(PollMode::adaptive, 1, 64), PollMode::adaptive);
    EXPECT_EQ(poll_on_host(PollMode::spin, 5, 2), PollMode::spin);
    EXPECT_EQ(poll_on_host(PollMode::event, 1, 2), PollMode::event);
}
