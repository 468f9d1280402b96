// Runs one piece of work on each of N threads, round after round, and returns when all are done:
// the fabric's parts, window by window (FabricSim). Piece 0 runs on the calling thread, the others
// on threads kept for the runner's life. A thread waiting for the next round, or for the others,
// spins a little (a window's work is tens of microseconds) when every thread has a core, then
// sleeps on the round's counter.
#pragma once
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <utility>
#include <thread>
#include <vector>

namespace evb::netsim {

class RoundRunner {
public:
    explicit RoundRunner(std::uint32_t threads);
    ~RoundRunner();
    RoundRunner(const RoundRunner&) = delete;
    RoundRunner& operator=(const RoundRunner&) = delete;

    std::uint32_t threads() const { return static_cast<std::uint32_t>(workers_.size() + 1); }
    // work(i) for every i below threads(), at once; rethrows the first exception one threw.
    void run(const std::function<void(std::uint32_t)>& work);

private:
    void serve(std::uint32_t index);
    void record(std::exception_ptr e);

    const int spins_; // pauses before a waiting thread sleeps: about a millisecond, or none
    std::vector<std::thread> workers_;
    const std::function<void(std::uint32_t)>* work_ = nullptr;
    std::atomic<std::uint64_t> round_{0};
    std::atomic<std::uint32_t> done_{0};
    bool stopping_ = false; // written before a round's increment, read after it
    std::mutex error_mutex_;
    std::exception_ptr error_;
};

} // namespace evb::netsim
