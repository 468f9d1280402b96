#include "netsim/engine/round_runner.hpp"

#include "core/placement.hpp"

#include <immintrin.h>

namespace evb::netsim {

namespace {
// Waits until `counter` is no longer `seen`, spinning `spins` pauses first; its new value.
template <class T>
T wait_past(const std::atomic<T>& counter, T seen, int spins) {
    for (int i = 0; i < spins; ++i) {
        const T now = counter.load(std::memory_order_acquire);
        if (now != seen) return now;
        _mm_pause();
    }
    for (;;) {
        counter.wait(seen, std::memory_order_acquire);
        const T now = counter.load(std::memory_order_acquire);
        if (now != seen) return now;
    }
}
} // namespace

// A thread spins only while each has a core of its own: beside more threads than cores, a
// spinning thread holds the core the one it waits for needs.
RoundRunner::RoundRunner(std::uint32_t threads) : spins_(threads <= current_thread_cpus().size() ? 1 << 14 : 0) {
    for (std::uint32_t i = 1; i < threads; ++i) workers_.emplace_back([this, i] { serve(i); });
}

RoundRunner::~RoundRunner() {
    stopping_ = true;
    round_.fetch_add(1, std::memory_order_release);
    round_.notify_all();
    for (auto& t : workers_) t.join();
}

void RoundRunner::run(const std::function<void(std::uint32_t)>& work) {
    work_ = &work;
    done_.store(0, std::memory_order_relaxed);
    round_.fetch_add(1, std::memory_order_release);
    round_.notify_all();
    try {
        work(0);
    } catch (...) {
        record(std::current_exception());
    }
    const auto others = static_cast<std::uint32_t>(workers_.size());
    for (std::uint32_t done = done_.load(std::memory_order_acquire); done != others;) done = wait_past(done_, done, spins_);
    work_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void RoundRunner::serve(std::uint32_t index) {
    for (std::uint64_t seen = 0;;) {
        seen = wait_past(round_, seen, spins_);
        if (stopping_) return;
        try {
            (*work_)(index);
        } catch (...) {
            record(std::current_exception());
        }
        done_.fetch_add(1, std::memory_order_acq_rel);
        done_.notify_one();
    }
}

void RoundRunner::record(std::exception_ptr e) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = std::move(e);
}

} // namespace evb::netsim
