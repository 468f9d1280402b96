// The report's own options: what a run prints and writes (--json, --quiet, --rows). Their fields
// live in the run's Config (src/exec/run_config.hpp), which every layer below reads; the report
// declares them.
#pragma once
#include "core/options.hpp"
#include "exec/run_config.hpp"

namespace evb {

// The group "output", after the run's own groups.
void declare_report_options(OptionSet& options, Config& config);

} // namespace evb
