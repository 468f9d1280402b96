// Control: a unit may include what sits below it (units, scheduling, core).
#include "builder_unit.hpp"
#include "options.hpp"
#include "schedule.hpp"
