#include "exec/in_process_run.hpp"

#include "core/interrupt.hpp"
#include "core/log.hpp"
#include "exec/reactor.hpp"
#include "exec/run_loop.hpp"
#include "exec/progress_counts.hpp"
#include "exec/run_deadline.hpp"
#include "exec/steady_report.hpp"
#include "exec/steady_watch.hpp"

#include <fmt/format.h>

namespace evb {

RunOutcome run_in_process(const Config& config, std::vector<std::unique_ptr<Transport>> transports, RunObserver& observer) {
    auto units = make_run_units(config);
    auto& log = logger("evb");
    std::vector<std::unique_ptr<Node>> nodes;
    // Declared after the nodes, so closed before them: a transport may still land data in the
    // pools it registered, which the nodes' units own, until it is closed.
    const auto open = std::move(transports);
    Reactor reactor;
    // One thread runs every rank: placed once, as local rank 0 of one.
    const NicName nic = open.empty() ? NicName{} : open.front()->nic();
    const PlacementPlan plan = place_this_thread(config, 0, 1, nic);
    std::vector<RankPlacement> placements;
    for (auto& t : open) {
        UnitsOfRank mine = units->units_of(t->rank(), pool_memory(config, plan));
        placements.push_back(read_back_placement(t->rank(), plan, nic, mine.pools, t->capabilities().pins_memory));
        nodes.push_back(std::make_unique<Node>(std::move(mine), units->layout(), *t, log));
        reactor.add(*nodes.back());
    }
    observer.started(units->layout().ranks(), "in one process", placement_lines(placements));

    Picoseconds deadline = run_deadline(config);
    Picoseconds next_progress = config.progress_interval;
    // --until steady: every BU sampled as often as ranks take their counts.
    const Picoseconds steady_spacing = progress_record_period(config.progress_interval);
    std::optional<SteadyWatch> steady;
    if (config.until == Until::steady) steady.emplace(config, units->layout(), nodes);
    bool ending = false;
    const Picoseconds origin = steady_now();
    const CpuTime cpu_at_start = process_cpu_time();
    for (auto& n : nodes) n->start();

    RunResult result = make_result(config);
    RunLoop loop(reactor, origin);
    std::uint64_t pass = 0;
    loop.every(Picoseconds(0), [&](Picoseconds now) {
        if (auto f = reactor.failure()) {
            result.failure = f;
            return loop.end();
        }
        // Checking the clock costs little next to a poll pass; check completion only now and then.
        if ((pass++ & 63) == 0 && reactor.all_finished()) return loop.end();
        // Interrupted, or the rate is known: as at --duration's end, now: what is under way finishes.
        auto end_now = [&] {
            ending = true;
            for (auto& n : nodes) n->end_now();
            deadline = std::min(deadline, now + config.grace);
        };
        if (!result.interrupted && interrupt_signal()) {
            result.interrupted = interrupt_signal();
            if (!ending) end_now();
        }
        if (steady && !ending && now >= steady->next_due(steady_spacing) && steady->sample(now)) end_now();
        if (now >= next_progress) {
            observer.progress(now, reactor.progress());
            next_progress += config.progress_interval;
        }
        if (now >= deadline) {
            result.failure = fmt::format("run did not finish within {:g} s (duration + grace); {} fragments in flight", deadline.seconds(),
                                         reactor.totals().in_flight);
            loop.end();
        }
    });
    loop.run();
    const Picoseconds now = loop.now();
    for (auto& n : nodes) {
        n->stop();
        result.add(n->stats());
    }
    result.cpu.push_back({std::nullopt, process_cpu_time() - cpu_at_start});
    result.placement = std::move(placements);
    result.origins.push_back(this_process_origin(std::nullopt, nic));
    result.elapsed = now;
    result.wall_seconds = now.seconds();
    RunOutcome outcome;
    outcome.result = std::move(result);
    if (steady) add_steady_report(outcome, steady->verdict(), config);
    return outcome;
}

} // namespace evb
