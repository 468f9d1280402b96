// One rank of a distributed run, through the bootstrap and the executor as every rank runs them,
// over the local transport as `wrap` changes it.
#pragma once
#include "exec/distributed_run.hpp"
#include "drivers/local/local_driver.hpp"
#include "report/report.hpp"

#include <functional>
#include <memory>
#include <sstream>

namespace evb::test {

inline RunOutcome run_one_local_rank(Config c, const std::function<std::unique_ptr<Transport>(std::unique_ptr<Transport>)>& wrap) {
    c.bootstrap = "127.0.0.1:0";
    World world;
    world.launcher = "test";
    world.single_host = true;
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    const RunKey key = RunKey::random();
    return run_distributed(c, world, "fingerprint", key, {[&](const std::string&, std::uint32_t, std::uint32_t) {
                               auto all = LocalDriver().make_all(1);
                               return wrap(std::move(all.front()));
                           }},
                           console);
}

} // namespace evb::test
