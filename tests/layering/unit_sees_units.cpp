// Control: a unit may include what sits below it (units, scheduling, core).
#include "units/builder_unit.hpp"
#include "core/options.hpp"
#include "scheduling/schedule.hpp"
