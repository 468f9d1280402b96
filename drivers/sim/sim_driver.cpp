#include "sim_driver.hpp"

#include "options.hpp"

namespace evb {

void SimDriver::complete(Config& c, const OptionSet& given) {
    if (!c.events && !given.given("duration")) c.duration = Picoseconds::from_seconds(1e-3);
    if (!given.given("progress-interval"))
        c.progress_interval = c.duration > Picoseconds(0) ? Picoseconds(c.duration.count() / 10) : Picoseconds::from_seconds(1e-3);
    c.fragment_memory = 64;   // headers in memory; the rest exists on the simulated wire only
    options_.resolve(c.seed, given.given("k"));
}

} // namespace evb
