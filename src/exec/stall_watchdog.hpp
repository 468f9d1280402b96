// Ends a rank whose thread is stuck inside its transport, where no timeout of ours can reach it.
// libfabric's shm provider keeps spin locks in the shared memory of each peer: a process killed
// while holding one leaves every survivor that sends to that peer, or polls its own queue,
// spinning in fi_injectdata or fi_cq_read forever. A rank's loop turns every millisecond or so;
// one that has not turned for `stall_limit` is stuck, and after the loop the rest of the rank
// (gathering, closing its transport) gets `ending_limit`. Either way the watchdog writes one line,
// "evbench[rank R]: error: ...", and ends the process with exit code 1.
#pragma once
#include "core/time.hpp"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace evb {

class StallWatchdog {
public:
    // `what` names the transport in the line: "libfabric 1.17, provider shm, domain shm".
    StallWatchdog(std::uint32_t rank, std::string what, Picoseconds stall_limit, Picoseconds ending_limit);
    ~StallWatchdog();
    StallWatchdog(const StallWatchdog&) = delete;
    StallWatchdog& operator=(const StallWatchdog&) = delete;

    // The loop turned.
    void beat() { last_beat_.store(steady_now().count(), std::memory_order_relaxed); }
    // The loop is over: from now on the rank must be gone within the ending limit.
    void ending();

private:
    void watch();
    [[noreturn]] void give_up(const std::string& why);

    const std::uint32_t rank_;
    const std::string what_;
    const Picoseconds stall_limit_, ending_limit_;
    std::atomic<std::int64_t> last_beat_;
    std::atomic<std::int64_t> ending_since_{-1};
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::thread thread_;
};

} // namespace evb
