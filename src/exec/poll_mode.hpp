// What a reactor thread does when a pass over its transport finds nothing: poll again (spin), sleep
// in the transport's wait object at once (event), or spin a little first, then sleep (adaptive).
#pragma once
#include <cstddef>
#include <string>

namespace evb {

enum class PollMode { spin, adaptive, event };
std::string to_string(PollMode);

// What a reactor thread does on a host with `threads` reactor threads and `cpus` CPUs to run them:
// adaptive spins only where each thread has a CPU of its own. With more threads than CPUs a rank
// that spins takes the core a neighbour with work is waiting for (5 ranks on 2 cores: ofi and
// ucx moved a fifth more without the spin, docs/performance.md), so it sleeps at once.
inline PollMode poll_on_host(PollMode asked, std::size_t threads, std::size_t cpus) {
    return asked == PollMode::adaptive && threads > cpus ? PollMode::event : asked;
}

} // namespace evb
