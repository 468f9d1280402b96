// The units' flags: every field of UnitConfig declared once (flag, config-file key, default, help,
// JSON echo), and the defaults that follow from other flags. The executor declares the run's other
// options (src/exec/run_config.hpp), drivers their own (drivers/<name>/).
#pragma once
#include "units/config.hpp"
#include "core/options.hpp"

namespace evb {

// Into the group open in `options` (the executor's "run").
void declare_unit_options(OptionSet& options, UnitConfig& config);
// After parsing: the defaults of flags not given that depend on those given.
void derive_unit_defaults(UnitConfig& config, const OptionSet& options);

} // namespace evb
