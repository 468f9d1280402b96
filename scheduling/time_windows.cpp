#include "scheduling/time_windows.hpp"

#include <algorithm>

namespace evb {

TimeWindows::Window TimeWindows::at(Picoseconds now) const {
    const std::int64_t period = (send_ + idle_).count();
    const std::int64_t phase = now.count() / period;
    const Picoseconds start(phase * period);
    return {phase, start, start + send_, Picoseconds((phase + 1) * period)};
}

std::optional<Picoseconds> TimeWindows::fit(const Window& w, Picoseconds busy_until) const {
    const Picoseconds done = std::max(w.start, busy_until) + message_;
    if (done > w.end) return std::nullopt;
    return done;
}

} // namespace evb
