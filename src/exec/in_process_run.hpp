// The real executor with every rank in this process (in-process drivers such as `local`): one
// reactor thread drives all ranks' nodes until the units finish, a node fails or the deadline.
#pragma once
#include "exec/run_config.hpp"
#include "exec/run_observer.hpp"
#include "exec/run_result.hpp"
#include "drivers/transport/transport.hpp"

#include <memory>
#include <vector>

namespace evb {

// One transport per rank, in rank order.
RunOutcome run_in_process(const Config& config, std::vector<std::unique_ptr<Transport>> transports, RunObserver& observer);

} // namespace evb
