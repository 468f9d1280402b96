// --rails: how the writes spread over the NICs, as evbench posted them (the devices' own port
// counters are the check: tests/test_verbs.cpp reads them in the VM).
#pragma once
#include "exec/run_result.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace evb {

// One footer line, the bytes of every rank summed per NIC; nothing without --rails.
void print_rails(std::ostream& out, const RunResult& r);
nlohmann::json rails_json(const RunResult& r);

} // namespace evb
