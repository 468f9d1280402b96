// The run's flags: every field of Config declared once (flag, config-file key, default, help,
// JSON echo). Drivers declare their own options next to them (drivers/<name>/).
#pragma once
#include "units/config.hpp"
#include "core/options.hpp"

namespace evb {

void declare_config_options(OptionSet& options, Config& config);

} // namespace evb
