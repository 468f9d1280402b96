// The units' flags: every field of UnitConfig declared once (flag, config-file key, default, help,
// JSON echo). The executor declares the run's other options (src/exec/run_config.hpp), drivers
// their own (drivers/<name>/).
#pragma once
#include "units/config.hpp"
#include "core/options.hpp"

namespace evb {

void declare_unit_options(OptionSet& options, UnitConfig& config);

} // namespace evb
