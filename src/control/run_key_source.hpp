// Where a run's key comes from (docs/security.md): --run-key-file, else EVBENCH_RUN_KEY (set by
// launch/mpirun.sh and launch/srun.sh, or by the local launcher for its ranks), else a value
// derived from the launcher's job id, which keeps concurrent jobs apart but is no secret.
#pragma once
#include "core/run_key.hpp"
#include "control/world.hpp"

#include <string>

namespace evb {

// Throws ConfigError, one line, on a key file that is unreadable, too short, too long or readable by others.
RunKey choose_run_key(const World& world, const std::string& key_file);

// True when the user gave a key (--run-key-file or EVBENCH_RUN_KEY), which ranks on other hosts can share.
bool run_key_given(const std::string& key_file);

// The local launcher's ranks: its key in their environment, unless the user gave one.
void hand_run_key_to_children(const std::string& key_file);

} // namespace evb
