#include "core/interrupt.hpp"

#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

namespace evb {
namespace {

std::atomic<int> first_signal{0};
std::atomic<std::int64_t> first_at_ns{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free, "used in a signal handler");

// One Ctrl-C often arrives twice within milliseconds: from the terminal to every process of the
// foreground group, and again from a launcher that passes signals on (evbench's own, mpirun's
// SIGTERM). A signal within this time of the first is the same interrupt.
constexpr std::int64_t same_interrupt_ns = 500'000'000;

std::int64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts); // async-signal-safe
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// The first signal takes the time in one step: a second one, on another thread or a moment later,
// reads when the first came (set apart, it could read no time yet and end the process).
// Returns 0 for the first, else when the first came.
std::int64_t take_first(int sig, std::int64_t now) {
    std::int64_t first_at = 0;
    if (first_at_ns.compare_exchange_strong(first_at, now)) first_signal.store(sig);
    return first_at;
}

void on_interrupt(int sig) {
    const std::int64_t now = monotonic_ns();
    const std::int64_t first_at = take_first(sig, now);
    if (first_at == 0 || now - first_at < same_interrupt_ns) return;
    // The second: what the signal does by default (the process ends, its status says by what).
    signal(sig, SIG_DFL);
    raise(sig);
}

} // namespace

void catch_interrupts() {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

int interrupt_signal() { return first_signal.load(std::memory_order_relaxed); }

void note_interrupt(int sig) { take_first(sig, monotonic_ns()); }

std::string signal_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "signal " + std::to_string(sig);
    }
}

int interrupted_exit_code(int sig) { return 128 + sig; }

} // namespace evb
