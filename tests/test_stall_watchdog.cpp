// A rank stuck inside its transport ends by itself with one line. libfabric's shm provider left
// survivors spinning in fi_injectdata and fi_cq_read forever when a killed rank had held one of
// its spin locks (ProcessFailure.*/OfiShm hung about one run in 60); here a transport that never
// returns from a call stands for it, in a real distributed run of one rank in a child process.
#include "forwarding_transport.hpp"
#include "one_rank_run.hpp"
#include "run_command.hpp"
#include "exec/stall_watchdog.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <thread>

using namespace evb;
using namespace std::chrono_literals;

namespace {

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

[[noreturn]] void never_return() {
    for (;;) std::this_thread::sleep_for(1h);
}

// Never returns from its `stuck_at`-th poll, as a provider spinning on a lock a dead peer held.
class StuckInPoll final : public test::ForwardingTransport {
public:
    StuckInPoll(std::unique_ptr<Transport> inner, int stuck_at) : ForwardingTransport(std::move(inner)), left_(stuck_at) {}
    std::size_t poll(std::span<Completion> out) override {
        if (--left_ == 0) never_return();
        return ForwardingTransport::poll(out);
    }

private:
    int left_;
};

// Never returns from closing.
class StuckInClose final : public test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;
    ~StuckInClose() override { never_return(); }
};

struct ChildEnd {
    bool ended = false;
    int exit_code = -1;
    std::string err;
    double seconds = 0;
};

// Runs `body` in a child process with its stderr in a file; `meanwhile` runs in the parent.
// The child is killed if it has not ended within `guard`.
ChildEnd run_in_child(const std::string& name, const std::function<void()>& body, std::chrono::seconds guard,
                      const std::function<void(pid_t)>& meanwhile = {}) {
    const std::string err = test::temp_path(name + ".err");
    const auto start = std::chrono::steady_clock::now();
    const pid_t child = fork();
    if (child == 0) {
        int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        body();
        _exit(0);
    }
    if (meanwhile) meanwhile(child);
    ChildEnd end;
    int status = 0;
    while (!(end.ended = waitpid(child, &status, WNOHANG) == child) && std::chrono::steady_clock::now() < start + guard)
        std::this_thread::sleep_for(20ms);
    if (!end.ended) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    } else if (WIFEXITED(status)) {
        end.exit_code = WEXITSTATUS(status);
    }
    end.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    end.err = test::read_file(err);
    return end;
}

// One rank over the local transport wrapped by `wrap`; exit code 2 if it failed.
void run_one_rank(const std::function<std::unique_ptr<Transport>(std::unique_ptr<Transport>)>& wrap, std::uint64_t events) {
    Config c;
    c.nodes = 1;
    c.events = events;
    c.duration = Picoseconds(0);
    c.fragment_size = 4096;
    c.grace = Picoseconds::from_seconds(1);
    c.quiet = true;
    if (!test::run_one_local_rank(c, wrap).result) _exit(2);
}

} // namespace

TEST(StallWatchdog, ARankStuckInATransportCallEndsWithOneLine) {
    // 100 000 events take far more than 50 polls; the loop turns, then one poll never returns.
    ChildEnd end = run_in_child(
        "stuck_in_poll",
        [] { run_one_rank([](std::unique_ptr<Transport> t) { return std::make_unique<StuckInPoll>(std::move(t), 50); }, 100000); }, 60s);
    ASSERT_TRUE(end.ended) << "the stuck rank hung";
    EXPECT_EQ(end.exit_code, 1) << end.err;
    // --grace 1 s: the loop gets the 5 s floor.
    EXPECT_NE(end.err.find("evbench[rank 0]: error: its loop has not turned for 5 s: a call into the transport ("), std::string::npos)
        << end.err;
    EXPECT_EQ(std::count(end.err.begin(), end.err.end(), '\n'), 1) << end.err;
}

TEST(StallWatchdog, ARankWhoseTransportNeverClosesEndsAfterTheGraceAndTheClosingAllowance) {
    ChildEnd end = run_in_child(
        "stuck_in_close",
        [] { run_one_rank([](std::unique_ptr<Transport> t) { return std::make_unique<StuckInClose>(std::move(t)); }, 50); }, 60s);
    ASSERT_TRUE(end.ended) << "the stuck rank hung";
    EXPECT_EQ(end.exit_code, 1) << end.err;
    EXPECT_NE(end.err.find("evbench[rank 0]: error: still ending 11 s after its loop stopped: gathering and closing the transport ("),
              std::string::npos)
        << end.err;
}

TEST(StallWatchdog, AProcessFrozenLongerThanTheLimitIsNotBlamedWhenItResumes) {
    // A loop that turns after every 50 ms of its own CPU time, for 0.6 s of it, stopped (SIGSTOP)
    // for 3 s on the way: three times the 1 s limit. Its turn after the stop is still 50 ms of
    // work away when the watchdog wakes, so only knowing that the whole process was frozen keeps
    // the watchdog from blaming the loop.
    ChildEnd end = run_in_child(
        "frozen",
        [] {
            StallWatchdog dog(3, "test transport", Picoseconds::from_seconds(1), Picoseconds::from_seconds(1));
            for (int turn = 0; turn < 12; ++turn) {
                dog.beat();
                const double from = thread_cpu_seconds();
                while (thread_cpu_seconds() < from + 0.05) {}
            }
        },
        60s,
        [](pid_t child) {
            std::this_thread::sleep_for(200ms);
            kill(child, SIGSTOP);
            std::this_thread::sleep_for(3s);
            kill(child, SIGCONT);
        });
    ASSERT_TRUE(end.ended);
    EXPECT_EQ(end.exit_code, 0) << end.err;
    EXPECT_EQ(end.err, "");
}

TEST(StallWatchdog, ALoopThatStopsTurningIsEndedAfterTheLimit) {
    ChildEnd end = run_in_child(
        "stopped_turning",
        [] {
            StallWatchdog dog(3, "test transport", Picoseconds::from_seconds(0.3), Picoseconds::from_seconds(0.3));
            for (int i = 0; i < 200; ++i) {
                dog.beat();
                std::this_thread::sleep_for(1ms);
            }
            never_return();
        },
        60s);
    ASSERT_TRUE(end.ended);
    EXPECT_EQ(end.exit_code, 1);
    EXPECT_EQ(end.err,
              "evbench[rank 3]: error: its loop has not turned for 0.3 s: a call into the transport (test transport) does not return; "
              "a peer that died may hold a lock it shared with this rank (libfabric's shm provider keeps spin locks in shared "
              "memory); ending this rank\n");
}
