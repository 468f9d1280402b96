#include "run_local.hpp"

#include "layout.hpp"
#include "log.hpp"
#include "reactor.hpp"
#include "registry.hpp"
#include "report.hpp"

#include <fmt/format.h>

namespace evb {

Picoseconds run_deadline(const Config& c) {
    Picoseconds limit = c.duration > Picoseconds(0) ? c.duration : Picoseconds::from_seconds(600);
    return limit + c.grace;
}

RunResult run_in_process(const Config& config, const DriverEntry& driver, std::ostream& out) {
    Layout layout = Layout::from_config(config);
    auto transports = driver.make_all(config, layout.ranks());
    FragmentSizer sizer(config);
    auto schedule = make_schedule(config.scheduling, config.seed);
    UnitSetup setup{config, sizer, *schedule};
    auto& log = logger("evb");

    std::vector<std::unique_ptr<Node>> nodes;
    Reactor reactor;
    for (auto& t : transports) {
        nodes.push_back(std::make_unique<Node>(setup, layout, *t, log));
        reactor.add(*nodes.back());
    }
    if (!config.quiet) print_header(out, config, layout.ranks(), "in one process");

    ProgressPrinter progress(config.nodes);
    Picoseconds deadline = run_deadline(config);
    Picoseconds next_progress = config.progress_interval;
    Picoseconds origin = steady_now();
    for (auto& n : nodes) n->start();

    RunResult result = make_result(config);
    Picoseconds now{};
    // Checking the clock costs little next to a poll pass; check completion only now and then.
    for (std::uint64_t pass = 0;; ++pass) {
        now = steady_now() - origin;
        reactor.run_once(now);
        if (auto f = reactor.failure()) {
            result.failure = f;
            break;
        }
        if ((pass & 63) == 0 && reactor.all_finished()) break;
        if (now >= next_progress) {
            if (!config.quiet) progress.line(out, now, reactor.totals());
            next_progress += config.progress_interval;
        }
        if (now >= deadline) {
            result.failure = fmt::format("run did not finish within {:g} s (duration + grace); {} fragments in flight",
                                         deadline.seconds(), reactor.totals().in_flight);
            break;
        }
    }
    for (auto& n : nodes) {
        n->stop();
        result.add(n->stats());
    }
    result.elapsed = now;
    result.wall_seconds = now.seconds();
    return result;
}

} // namespace evb
