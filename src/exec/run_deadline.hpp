// Hard limit of a run: its planned time (duration, or a shift scan's phases; with only a count,
// 10 min) plus the grace period.
// Every executor and the local launcher end a run that has not finished by then.
#pragma once
#include "exec/run_config.hpp"

namespace evb {

inline Picoseconds run_deadline(const Config& c) {
    Picoseconds limit = c.planned_time() > Picoseconds(0) ? c.planned_time() : Picoseconds::from_seconds(600);
    return limit + c.grace;
}

} // namespace evb
