// Every rank of a configuration on the local driver, in this process, as `evbench` runs it.
#pragma once
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "report/report.hpp"

#include <ostream>
#include <sstream>

namespace evb::test {

inline RunResult run_local(const Config& c, std::ostream& out) {
    ConsoleReport console(out, c, false);
    return *run_in_process(c, LocalDriver().make_all(Layout::from_config(c).ranks()), console).result;
}

inline RunResult run_local(const Config& c) {
    std::ostringstream out;
    return run_local(c, out);
}

} // namespace evb::test
