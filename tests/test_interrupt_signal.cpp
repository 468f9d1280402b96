// The interrupt handler (src/core/interrupt.hpp) in a forked child, where a signal's default
// action cannot end the test process: the first Ctrl-C asks the run to end, the same Ctrl-C
// arriving again within milliseconds (from a launcher passing it on) is the same interrupt, and
// a second one later ends the process as SIGINT does.
#include "core/interrupt.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace evb;

TEST(InterruptSignal, TheFirstAsksTheRunToEndARepeatWithinHalfASecondIsTheSameAndALaterOneEndsTheProcess) {
    int pipe_fds[2];
    ASSERT_EQ(pipe(pipe_fds), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(pipe_fds[0]);
        auto say = [&](char c) { (void)!write(pipe_fds[1], &c, 1); };
        if (interrupt_signal() != 0) _exit(10);
        catch_interrupts();
        raise(SIGINT);
        if (interrupt_signal() != SIGINT) _exit(11);
        say('1');
        raise(SIGTERM); // the launcher's copy: still alive, still the first signal
        if (interrupt_signal() != SIGINT) _exit(12);
        say('2');
        std::this_thread::sleep_for(std::chrono::milliseconds(600)); // the time that makes the next one a second Ctrl-C
        raise(SIGINT);
        say('3'); // not reached
        _exit(0);
    }
    close(pipe_fds[1]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    char said[4] = {};
    const ssize_t n = read(pipe_fds[0], said, sizeof said - 1);
    close(pipe_fds[0]);
    EXPECT_EQ(std::string(said, n > 0 ? static_cast<std::size_t>(n) : 0), "12");
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGINT);
}

TEST(InterruptSignal, NamesAndExitCodesAreTheShellsOwn) {
    EXPECT_EQ(signal_name(SIGINT), "SIGINT");
    EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
    EXPECT_EQ(interrupted_exit_code(SIGINT), 130);
    EXPECT_EQ(interrupted_exit_code(SIGTERM), 143);
}
