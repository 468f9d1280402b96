#include "run_distributed.hpp"

#include "bootstrap.hpp"
#include "layout.hpp"
#include "log.hpp"
#include "reactor.hpp"
#include "registry.hpp"
#include "report.hpp"
#include "run_local.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace evb {
namespace {

const Picoseconds setup_timeout = Picoseconds::from_seconds(30);

nlohmann::json progress_record(const NodeStats& s) {
    return {{"type", "progress"}, {"bytes_in", s.bytes_in}, {"bytes_out", s.bytes_out},
            {"events", s.events_built}, {"in_flight", s.in_flight}};
}

std::string auto_listen_host(const World& world) {
    if (world.single_host) return "127.0.0.1";
    char name[256] = {0};
    gethostname(name, sizeof name - 1);
    return name;
}

// Rank 0's view of everyone's progress, from the latest record of each rank.
struct ProgressBoard {
    std::vector<NodeStats> latest;
    NodeStats sum() const {
        NodeStats s;
        for (const auto& r : latest) {
            s.bytes_in += r.bytes_in;
            s.bytes_out += r.bytes_out;
            s.events_built += r.events_built;
            s.in_flight += r.in_flight;
        }
        return s;
    }
    void update(std::uint32_t rank, const nlohmann::json& j) {
        auto& r = latest[rank];
        r.bytes_in = j.at("bytes_in");
        r.bytes_out = j.at("bytes_out");
        r.events_built = j.at("events");
        r.in_flight = j.at("in_flight");
    }
};

} // namespace

int run_distributed(const Config& config, const DriverEntry& driver, const World& world, std::ostream& out) {
    auto& log = logger("evb");
    Layout layout = Layout::from_config(config);
    if (layout.ranks() != world.size)
        throw ConfigError(fmt::format("{} ranks were started but nodes={} ppn={} em={} needs {}", world.size, config.nodes,
                                      config.ppn, to_string(config.em), layout.ranks()));
    Config effective = config;
    if (effective.listen_host.empty()) effective.listen_host = auto_listen_host(world);
    std::string endpoint = bootstrap_endpoint(config.bootstrap, world);
    int inherited = -1;
    if (const char* fd = std::getenv("EVBENCH_BOOTSTRAP_FD"); fd && world.rank == 0) inherited = std::atoi(fd);

    Bootstrap boot(world, endpoint, inherited, setup_timeout);
    auto transport = driver.make_one(effective, world.rank, world.size);
    std::string fingerprint = to_json(config).dump();
    auto addresses = boot.allgather(transport->local_address(), fingerprint);
    transport->connect(addresses, setup_timeout);

    FragmentSizer sizer(config);
    auto schedule = make_schedule(config.scheduling, config.seed);
    UnitSetup setup{config, sizer, *schedule};
    Node node(setup, layout, *transport, log);
    Reactor reactor;
    reactor.add(node);
    bool root = world.rank == 0;
    if (root && !config.quiet) print_header(out, config, world.size, world.launcher);
    boot.barrier();

    ProgressPrinter printer(config.nodes);
    ProgressBoard board{std::vector<NodeStats>(world.size)};
    std::vector<bool> done(world.size, false);
    std::uint32_t done_count = 0;
    bool sent_done = false, finish = false;
    std::optional<std::string> failure;
    Picoseconds deadline = run_deadline(config);
    Picoseconds next_progress = config.progress_interval, next_control{};
    const Picoseconds control_period = Picoseconds::from_seconds(0.001);

    auto mark_done = [&](std::uint32_t r) {
        if (!done[r]) {
            done[r] = true;
            ++done_count;
        }
    };
    Picoseconds origin = steady_now(), now{};
    node.start();
    while (!finish && !failure) {
        now = steady_now() - origin;
        std::size_t work = reactor.run_once(now);
        if (node.failure()) {
            failure = node.failure();
            break;
        }
        if (now >= next_control) {
            next_control = now + control_period;
            if (node.finished() && !sent_done) {
                sent_done = true;
                if (root)
                    mark_done(0);
                else
                    boot.send_to_root({{"type", "done"}});
            }
            for (auto& in : boot.poll()) {
                const std::string type = in.body.value("type", "");
                if (type == "lost") {
                    failure = fmt::format("lost contact with {}: {}", root ? "rank " + std::to_string(in.from) : "rank 0",
                                          in.body.value("error", ""));
                } else if (type == "abort") {
                    failure = in.body.value("error", "aborted");
                } else if (type == "done") {
                    mark_done(in.from);
                } else if (type == "progress") {
                    board.update(in.from, in.body);
                } else if (type == "finish") {
                    finish = true;
                }
            }
            if (root && done_count == world.size) {
                boot.broadcast({{"type", "finish"}});
                finish = true;
            }
            if (now >= next_progress) {
                next_progress += config.progress_interval;
                if (root) {
                    board.update(0, progress_record(node.stats()));
                    if (!config.quiet) printer.line(out, now, board.sum());
                } else {
                    boot.send_to_root(progress_record(node.stats()));
                }
            }
            if (now >= deadline)
                failure = fmt::format("run did not finish within {:g} s (duration + grace); {} fragments in flight here",
                                      deadline.seconds(), node.stats().in_flight);
        }
        if (work == 0 && !finish) reactor.wait(std::min(control_period, reactor.next_timer() - now));
    }
    node.stop();

    if (failure) {
        std::cerr << fmt::format("evbench[rank {}]: error: {}\n", world.rank, *failure);
        if (root) boot.broadcast({{"type", "abort"}, {"error", "rank 0: " + *failure}});
        else boot.send_to_root({{"type", "abort"}, {"error", fmt::format("rank {}: {}", world.rank, *failure)}});
        return 1;
    }

    // Gather: every rank sends its statistics to rank 0, which prints the run's result.
    // Nobody closes its data connections before everyone has stopped using them: ranks wait for
    // rank 0's "bye", which it sends once every rank's statistics are in.
    if (!root) {
        boot.send_to_root({{"type", "stats"}, {"stats", node.stats().to_json()}});
        Picoseconds bye_deadline = steady_now() + config.grace;
        while (steady_now() < bye_deadline) {
            for (auto& in : boot.poll()) {
                auto type = in.body.value("type", "");
                if (type == "bye" || type == "lost") return 0;
            }
            usleep(1000);
        }
        return 0;
    }
    RunResult result = make_result(config);
    result.add(node.stats());
    std::uint32_t gathered = 1;
    Picoseconds gather_deadline = steady_now() + config.grace;
    while (gathered < world.size && steady_now() < gather_deadline) {
        for (auto& in : boot.poll()) {
            if (in.body.value("type", "") == "stats") {
                result.add(NodeStats::from_json(in.body.at("stats")));
                ++gathered;
            }
        }
        usleep(1000);
    }
    boot.broadcast({{"type", "bye"}});
    if (gathered < world.size)
        result.failure = fmt::format("only {} of {} ranks sent their statistics", gathered, world.size);
    result.elapsed = now;
    result.wall_seconds = now.seconds();
    print_table(out, config, result);
    if (!config.json_file.empty()) write_json_file(config.json_file, result_json(config, result));
    if (result.exit_code() != 0)
        std::cerr << "evbench: error: " << (result.failure ? *result.failure : "data errors: " + result.system().errors.describe()) << "\n";
    return result.exit_code();
}

} // namespace evb
