// Hard limit of a run: its duration (or, with only --events, 10 min) plus the grace period.
// Every executor and the local launcher end a run that has not finished by then.
#pragma once
#include "config.hpp"

namespace evb {

inline Picoseconds run_deadline(const Config& c) {
    Picoseconds limit = c.duration > Picoseconds(0) ? c.duration : Picoseconds::from_seconds(600);
    return limit + c.grace;
}

} // namespace evb
