#include "exec/stall_watchdog.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>

namespace evb {
namespace {
const auto tick = std::chrono::milliseconds(100);
// A tick this late means the whole process was frozen (SIGSTOP, a suspended VM) or starved,
// its loop too: the clocks start again instead of blaming the loop.
const Picoseconds frozen = Picoseconds::from_seconds(0.5);
} // namespace

StallWatchdog::StallWatchdog(std::uint32_t rank, std::string what, Picoseconds stall_limit, Picoseconds ending_limit)
    : rank_(rank), what_(std::move(what)), stall_limit_(stall_limit), ending_limit_(ending_limit), last_beat_(steady_now().count()) {
    thread_ = std::thread([this] { watch(); });
}

StallWatchdog::~StallWatchdog() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void StallWatchdog::ending() { ending_since_.store(steady_now().count(), std::memory_order_relaxed); }

void StallWatchdog::watch() {
    Picoseconds last_tick = steady_now();
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, tick, [this] { return stop_; })) {
        const Picoseconds now = steady_now();
        if (now - last_tick > frozen) {
            last_beat_.store(now.count(), std::memory_order_relaxed);
            if (ending_since_.load(std::memory_order_relaxed) >= 0) ending_since_.store(now.count(), std::memory_order_relaxed);
        }
        last_tick = now;
        const std::int64_t ending_since = ending_since_.load(std::memory_order_relaxed);
        if (ending_since >= 0) {
            if (now - Picoseconds(ending_since) > ending_limit_)
                give_up(fmt::format("still ending {:g} s after its loop stopped: gathering and closing the transport ({}) do not return",
                                    ending_limit_.seconds(), what_));
        } else if (now - Picoseconds(last_beat_.load(std::memory_order_relaxed)) > stall_limit_) {
            give_up(fmt::format("its loop has not turned for {:g} s: a call into the transport ({}) does not return; a peer that died "
                                "may hold a lock it shared with this rank (libfabric's shm provider keeps spin locks in shared memory)",
                                stall_limit_.seconds(), what_));
        }
    }
}

void StallWatchdog::give_up(const std::string& why) {
    const std::string line = fmt::format("evbench[rank {}]: error: {}; ending this rank\n", rank_, why);
    // The stuck thread may hold any lock of this process, stdio's included: write(2), then _exit.
    for (std::size_t done = 0; done < line.size();) {
        const ssize_t n = ::write(2, line.data() + done, line.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    _exit(1);
}

} // namespace evb
