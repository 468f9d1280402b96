#include "distributed_run.hpp"

#include "rank_statistics.hpp"

#include "bootstrap.hpp"
#include "endpoint_thread.hpp"
#include "interrupt.hpp"
#include "log.hpp"
#include "machine_info.hpp"
#include "printable_text.hpp"
#include "rank_placement.hpp"
#include "rank_statistics.hpp"
#include "reactor.hpp"
#include "run_deadline.hpp"
#include "stall_watchdog.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>

namespace evb {
namespace {

const Picoseconds setup_timeout = bootstrap_setup_time;
// A loop that has not turned for the grace period, or for this long when that is shorter, is
// stuck in its transport; after the loop, gathering gets the grace period and closing the
// transport this allowance (ofi drains for 2 s at most).
const Picoseconds stall_limit_floor = Picoseconds::from_seconds(5);
const Picoseconds closing_allowance = Picoseconds::from_seconds(10);

// Progress carries the bytes that crossed the network (what the progress lines show).
nlohmann::json progress_record(const NodeStats& s) {
    return {{"bytes_in", s.network_bytes_in()}, {"bytes_out", s.network_bytes_out()}, {"events", s.events_built}, {"in_flight", s.in_flight}};
}

std::string auto_listen_host(const World& world) {
    if (world.single_host) return "127.0.0.1";
    char name[256] = {0};
    gethostname(name, sizeof name - 1);
    return name;
}

// One rank's part of a set-up allgather, read by `read`: what it throws becomes one line naming
// the rank (the text came from a peer).
template <typename Read>
void read_setup_part(const std::string& text, std::size_t rank, const char* what, Read read) {
    try {
        read(nlohmann::json::parse(text));
    } catch (const std::exception& e) {   // nlohmann's, or the checks' std::invalid_argument
        throw std::runtime_error(fmt::format("rank {} sent {} that do not read: {:.200}", rank, what, e.what()));
    }
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

RunOutcome run_distributed(const Config& config, const World& world, const std::string& fingerprint, const RunKey& key,
                           const RankTransportFactory& make_transport, RunObserver& observer) {
    auto& log = logger("evb");
    auto units = make_run_units(config);
    const Layout& layout = units->layout();
    if (layout.ranks() != world.size)
        throw ConfigError(fmt::format("{} ranks were started but nodes={} ppn={} em={} needs {}", world.size, config.nodes,
                                      config.ppn, to_string(config.em), layout.ranks()));
    const std::string listen_host = config.listen_host.empty() ? auto_listen_host(world) : config.listen_host;
    std::string endpoint = bootstrap_endpoint(config.bootstrap, world);
    int inherited = -1;
    if (const char* fd = std::getenv("EVBENCH_BOOTSTRAP_FD"); fd && world.rank == 0) inherited = std::atoi(fd);

    Bootstrap boot(world, endpoint, inherited, key, setup_timeout);
    // Pools first, so they outlive every transport: closing may still land data in the pools a
    // transport registered (libfabric's tcp provider does, in fi_close, after a peer died). For
    // the same reason each node is declared before its transport.
    std::vector<std::unique_ptr<MemoryPool>> pools;
    std::unique_ptr<Node> node_owner;
    // Declared before the transport, so it still watches while the transport closes.
    std::optional<StallWatchdog> watchdog;
    const std::uint32_t first_endpoint = layout.first_endpoint_of(world.rank), endpoint_count = layout.endpoints_of(world.rank);
    auto transport = make_transport(listen_host, first_endpoint, layout.endpoints());
    // Placement before the pools exist, so their pages are born on the chosen node; every rank's
    // read-back travels with its address to rank 0, for the header.
    NicName nic = transport->nic();
    if (nic.empty()) nic.interface = interface_with_address(listen_host);
    const ThreadSlot slot = thread_slot(layout, world.rank, world.local_rank, world.local_ranks, first_endpoint);
    const PlacementPlan plan = place_this_thread(config, slot.slot, slot.slots, nic);
    UnitsOfRank mine = units->units_of(world.rank, pool_memory(config, plan));
    pools = std::move(mine.pools);
    // --threads per-unit: the first endpoint's units stay on this thread, each further one gets
    // its own thread and transport.
    std::vector<std::unique_ptr<EndpointThread>> extra;
    const bool per_unit = layout.endpoint_per_unit();
    UnitsOfRank first_units = per_unit ? take_units(mine, layout.units_on_endpoint(first_endpoint)) : std::move(mine);
    for (std::uint32_t e = first_endpoint + 1; e < first_endpoint + endpoint_count; ++e) {
        const RankUnits which = layout.units_on_endpoint(e);
        EndpointThread::Setup setup{config, layout, log, thread_slot(layout, world.rank, world.local_rank, world.local_ranks, e), nic,
                                    units_text(which)};
        extra.push_back(std::make_unique<EndpointThread>(setup, make_transport(listen_host, e, layout.endpoints()), take_units(mine, which)));
    }
    RankPlacement placed = read_back_placement(world.rank, plan, nic, pools_of(first_units), transport->capabilities().pins_memory);
    if (per_unit) placed.units = units_text(layout.units_on_endpoint(first_endpoint));
    nlohmann::json my_addresses = nlohmann::json::array({transport->local_address()});
    nlohmann::json my_placements = nlohmann::json::array({placed.to_json()});
    for (auto& t : extra) {
        my_placements.push_back(t->placement().to_json());   // first: the thread is done with its transport until connect
        my_addresses.push_back(t->transport().local_address());
    }
    std::vector<std::string> addresses;
    std::vector<RankPlacement> placements;
    std::vector<RankOrigin> origins;
    const auto setups = boot.allgather(
        nlohmann::json{{"addresses", my_addresses}, {"placements", my_placements}, {"origin", this_process_origin(world.rank, nic).to_json()}}
            .dump(0, ' ', false, nlohmann::json::error_handler_t::replace),
        fingerprint);
    for (std::size_t r = 0; r < setups.size(); ++r)
        read_setup_part(setups[r], r, "addresses and placements", [&](const nlohmann::json& j) {
            if (j.at("addresses").size() != layout.endpoints_of(static_cast<std::uint32_t>(r)))
                throw std::invalid_argument(fmt::format("{} addresses for its {} endpoints", j.at("addresses").size(),
                                                        layout.endpoints_of(static_cast<std::uint32_t>(r))));
            for (const auto& a : j.at("addresses")) addresses.push_back(a.get<std::string>());
            for (const auto& p : j.at("placements")) placements.push_back(RankPlacement::from_json(p));
            origins.push_back(RankOrigin::from_json(j.at("origin")));
            if (origins.back().rank != r) throw std::invalid_argument(fmt::format("its origin names rank {}", origins.back().rank.value_or(0)));
        });
    // Every endpoint connects at once: one waiting for another's accept must not block it.
    for (auto& t : extra) t->connect(addresses);
    transport->connect(addresses, setup_timeout);
    for (auto& t : extra) t->wait_connected();

    node_owner = std::make_unique<Node>(std::move(first_units), layout, *transport, log);
    Node& node = *node_owner;
    node.survive_failures(config.survives_failures());
    // Every region is registered now: the cards of transports that need them (--rails) go round.
    {
        nlohmann::json my_cards = nlohmann::json::array({transport->registration_card()});
        for (auto& t : extra) my_cards.push_back(t->transport().registration_card());
        std::vector<std::string> cards;
        const auto parts = boot.allgather(my_cards.dump(), fingerprint);
        for (std::size_t r = 0; r < parts.size(); ++r)
            read_setup_part(parts[r], r, "registration cards", [&](const nlohmann::json& j) {
                if (j.size() != layout.endpoints_of(static_cast<std::uint32_t>(r)))
                    throw std::invalid_argument(fmt::format("{} cards for its {} endpoints", j.size(),
                                                            layout.endpoints_of(static_cast<std::uint32_t>(r))));
                for (const auto& c : j) cards.push_back(c.get<std::string>());
            });
        transport->learn_registrations(cards);
        for (auto& t : extra) t->transport().learn_registrations(cards);
    }
    Reactor reactor(config.poll);
    reactor.add(node);
    bool root = world.rank == 0;
    if (root) {
        std::vector<std::string> details;
        if (std::string d = transport->describe(); !d.empty()) details.push_back("# transport: " + d);
        details.push_back("# run key: " + key.origin());
        // Ranks on several hosts: each line says which, and where its transport listens.
        if (std::any_of(origins.begin(), origins.end(), [&](const RankOrigin& o) { return o.host != origins.front().host; })) {
            std::size_t listening = 0;   // placements and addresses: one per endpoint, in rank order
            for (auto& p : placements) {
                const RankOrigin& o = origins.at(p.rank);
                p.host = printable_text(o.host, 64) + (o.address.empty() ? "" : " (" + printable_text(o.address, 64) + ")") + " at " +
                         printable_text(addresses.at(listening++), 80);
            }
        }
        for (const auto& line : placement_lines(placements)) details.push_back(line);
        observer.started(world.size, world.launcher, details);
    }
    boot.barrier();

    ProgressBoard board{std::vector<NodeStats>(world.size)};
    std::vector<bool> done(world.size, false), lost(world.size, false);
    std::uint32_t done_count = 0, lost_count = 0;
    // Rank 0 hears from every rank at least every beat_period (progress, done or a beat); one
    // silent for --heartbeat is lost. Rank 0 beats to every rank too: a rank that no longer
    // hears it (stopped or hung, its connections open) ends the run, as on rank 0's loss.
    const Picoseconds beat_period(config.heartbeat.count() / 4);
    Picoseconds next_beat{};
    std::vector<Picoseconds> last_heard(world.size, Picoseconds(0));
    bool sent_done = false, finish = false;
    // Losses this rank has been told of by rank 0. A loss may hand a finished rank new work (a
    // lost BU's events), so rank 0 forgets who was done and counts only "done" sent after the
    // rank heard of every loss so far.
    std::uint32_t losses_heard = 0;
    std::optional<std::string> failure;
    bool fenced = false;   // rank 0 declared this rank lost: it ends at once and says nothing more
    int interrupted = 0;   // the signal that ended the run early, here or on another rank
    Picoseconds deadline = run_deadline(config);
    // Rank 0 prints a line every interval; the other ranks send it their counts ten times as
    // often, so that a line counts every rank's work up to a tenth of an interval before its time.
    const Picoseconds progress_period = root ? config.progress_interval : Picoseconds(config.progress_interval.count() / 10);
    Picoseconds next_progress = progress_period, next_control{};
    const Picoseconds control_period = Picoseconds::from_seconds(0.001);

    // This rank as a whole: its first endpoint here and the others on their threads.
    auto rank_finished = [&] {
        if (!node.finished()) return false;
        for (const auto& t : extra)
            if (!t->finished()) return false;
        return true;
    };
    auto rank_failure = [&]() -> std::optional<std::string> {
        if (node.failure()) return node.failure();
        for (const auto& t : extra)
            if (auto f = t->failure()) return f;
        return std::nullopt;
    };
    auto rank_progress = [&] {
        NodeStats s = node.stats();
        for (const auto& t : extra) {
            const EndpointProgress p = t->progress();
            s.bytes_in += p.bytes_in;
            s.bytes_out += p.bytes_out;
            s.events_built += p.events;
            s.in_flight += p.in_flight;
        }
        return s;
    };
    // A lost rank is each of its endpoints lost (one, unless --threads per-unit).
    auto lose_endpoints_of = [&](std::uint32_t r, const std::string& how, Picoseconds failed_at = Picoseconds(-1)) {
        for (std::uint32_t e = layout.first_endpoint_of(r); e < layout.first_endpoint_of(r) + layout.endpoints_of(r); ++e)
            node.lose_rank(e, how, failed_at);
    };
    auto mark_done = [&](std::uint32_t r) {
        if (!done[r]) {
            done[r] = true;
            ++done_count;
        }
    };
    // Rank 0 learned that rank r is gone: it no longer waits for it, and tells every survivor
    // (a heartbeat loss is seen by no transport). Without --on-failure continue the run ends.
    // failed_at: when it fell silent, for a heartbeat loss (-1: unknown).
    auto rank_lost = [&](std::uint32_t r, const std::string& how, Picoseconds failed_at = Picoseconds(-1)) {
        if (lost[r]) return;
        if (!config.survives_failures()) {
            failure = Node::lost_connection_line(r, how);
            return;
        }
        lost[r] = true;
        ++lost_count;
        for (std::uint32_t i = 0; i < world.size; ++i)
            if (done[i] && !lost[i]) {
                done[i] = false;
                --done_count;
            }
        mark_done(r);
        sent_done = false;
        lose_endpoints_of(r, how, failed_at);
        boot.broadcast(ControlType::lost_rank, {{"rank", r}, {"how", cut_text(how, max_text_field)}});
    };
    Picoseconds origin = steady_now(), now{};
    // Interrupted (Ctrl-C, SIGTERM; here, or rank 0 said so): every rank's units start nothing
    // new, as at the duration's end, and the run drains and reports as usual. Rank 0 tells every
    // rank; another rank tells rank 0.
    auto end_run_now = [&](int sig, bool tell) {
        if (interrupted) return;
        interrupted = sig;
        note_interrupt(sig);
        node.end_now();
        for (auto& t : extra) t->end_now();
        deadline = std::min(deadline, now + config.grace);
        if (!tell) return;
        if (root) boot.broadcast(ControlType::end_now, {{"signal", sig}});
        else boot.send_to_root(ControlType::end_now, {{"signal", sig}});
    };
    const double started_unix_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const CpuTime cpu_at_start = process_cpu_time();
    for (auto& t : extra) t->go(origin);
    watchdog.emplace(world.rank, transport->describe(), std::max(config.grace, stall_limit_floor), config.grace + closing_allowance);
    node.start();
    while (!finish && !failure) {
        watchdog->beat();
        now = steady_now() - origin;
        std::size_t work = reactor.run_once(now);
        if (!interrupted && interrupt_signal()) end_run_now(interrupt_signal(), true);
        if (node.failure()) {
            failure = node.failure();
            break;
        }
        if (now >= next_control) {
            next_control = now + control_period;
            if (auto f = rank_failure()) {
                failure = f;
                break;
            }
            if (rank_finished() && !sent_done) {
                sent_done = true;
                if (root)
                    mark_done(0);
                else
                    boot.send_to_root(ControlType::done, {{"losses", losses_heard}});
            }
            if (config.heartbeat > Picoseconds(0) && now >= next_beat) {
                next_beat = now + beat_period;
                if (root) boot.broadcast(ControlType::beat);
                else boot.send_to_root(ControlType::beat);
            }
            for (auto& in : boot.poll()) {
                const nlohmann::json& body = in.message.body;
                // Fenced: nothing a rank declared lost says counts any more, not even its abort
                // (it was told, in the lost_rank about itself, and ends by itself).
                if (root && in.from != 0 && lost[in.from]) continue;
                if (in.from < world.size) last_heard[in.from] = now;   // a non-root rank hears only rank 0
                switch (in.message.type) {
                case ControlType::link_lost:
                    if (root && in.from != 0) rank_lost(in.from, "its control connection closed: " + body.at("error").get<std::string>());
                    else failure = fmt::format("lost contact with rank 0: {}", body.at("error").get<std::string>());
                    break;
                case ControlType::lost_rank: {
                    const auto r = body.at("rank").get<std::uint32_t>();
                    if (r >= world.size) {
                        failure = fmt::format("{} declared rank {} lost, but the run has {} ranks", boot.peer_name(in.from), r, world.size);
                        break;
                    }
                    if (r == world.rank) {   // woken after the survivors went on without it (stopped, hung, cut off)
                        fenced = true;
                        failure = fmt::format("rank 0 declared this rank lost ({}) and the run went on without it: what it did since "
                                              "does not count; ending",
                                              body.at("how").get<std::string>());
                        break;
                    }
                    lose_endpoints_of(r, body.at("how").get<std::string>());
                    ++losses_heard;
                    sent_done = false;   // said again once finished with what the loss brought
                    break;
                }
                case ControlType::abort: failure = body.at("error").get<std::string>(); break;
                case ControlType::done:
                    if (body.at("losses").get<std::uint32_t>() == lost_count) mark_done(in.from);
                    break;
                case ControlType::progress: board.update(in.from, body); break;
                case ControlType::finish: finish = true; break;
                case ControlType::end_now: {
                    const auto sig = body.at("signal").get<std::uint32_t>();
                    if (sig == 0 || sig > 64) {
                        failure = fmt::format("{} sent an end_now for signal {}, which is no signal", boot.peer_name(in.from), sig);
                        break;
                    }
                    end_run_now(static_cast<int>(sig), root);   // rank 0 passes it on to every rank
                    break;
                }
                case ControlType::beat: break;
                default:
                    if (root && in.from != 0) rank_lost(in.from, fmt::format("it sent a {} message during the run", to_string(in.message.type)));
                    else failure = fmt::format("rank 0 sent a {} message during the run", to_string(in.message.type));
                }
            }
            if (root && config.heartbeat > Picoseconds(0))
                for (std::uint32_t r = 1; r < world.size; ++r)
                    if (!lost[r] && now - last_heard[r] > config.heartbeat)
                        rank_lost(r, fmt::format("sent nothing for {:g} s (--heartbeat)", config.heartbeat.seconds()), last_heard[r]);
            if (!root && config.heartbeat > Picoseconds(0) && !failure && now - last_heard[0] > config.heartbeat)
                failure = fmt::format("lost contact with rank 0: it sent nothing for {:g} s (--heartbeat)", config.heartbeat.seconds());
            if (root && done_count == world.size) {
                boot.broadcast(ControlType::finish);
                finish = true;
            }
            if (now >= next_progress) {
                next_progress += progress_period;
                if (root) {
                    board.update(0, progress_record(rank_progress()));
                    observer.progress(now, board.sum());
                } else {
                    boot.send_to_root(ControlType::progress, progress_record(rank_progress()));
                }
            }
            if (now >= deadline)
                failure = fmt::format("run did not finish within {:g} s (duration + grace); {} fragments in flight here",
                                      deadline.seconds(), rank_progress().in_flight);
        }
        if (work == 0 && !finish) reactor.idle(now, std::min(control_period, reactor.next_timer() - now));
    }
    // A rank says "done" when it has nothing in flight, and may get work after (an assignment, a
    // request): rank 0 ends the run once every event is built, when what this rank posted since
    // may still await its completion. Counted before the statistics are taken.
    while (finish && !failure && !interrupted && !fenced && !rank_finished() && now < deadline) {
        now = steady_now() - origin;
        reactor.run_once(now);
    }
    watchdog->ending();
    node.stop();
    for (auto& t : extra) t->stop();
    NodeStats rank_stats = node.stats();
    for (const auto& t : extra) rank_stats.merge(t->stats());
    // --rails: this rank's bytes per NIC, its endpoints summed.
    std::vector<Transport::RailBytes> rails = transport->rail_bytes();
    for (auto& t : extra) {
        const auto more = t->transport().rail_bytes();
        for (std::size_t i = 0; i < rails.size(); ++i) rails[i].bytes += more.at(i).bytes;
    }
    RunOutcome outcome;
    outcome.rank = world.rank;
    if (failure) {
        if (fenced) {
            outcome.rank_failure = failure;
            return outcome;
        }
        if (root) boot.broadcast(ControlType::abort, {{"error", cut_text("rank 0: " + *failure, max_text_field)}});
        else boot.send_to_root(ControlType::abort, {{"error", cut_text(fmt::format("rank {}: {}", world.rank, *failure), max_text_field)}});
        outcome.rank_failure = failure;
        return outcome;
    }

    // Gather: every rank sends its statistics to rank 0, which prints the run's result.
    // Nobody closes its data connections before everyone has stopped using them: ranks wait for
    // rank 0's "bye", which it sends once every rank's statistics are in.
    if (!root) {
        const CpuTime cpu = process_cpu_time() - cpu_at_start;
        boot.send_to_root(ControlType::stats, rank_statistics_body(rank_stats, started_unix_s, rails, cpu));
        Picoseconds bye_deadline = steady_now() + config.grace;
        while (steady_now() < bye_deadline) {
            for (auto& in : boot.poll())
                if (in.message.type == ControlType::bye || in.message.type == ControlType::link_lost) return outcome;
            usleep(1000);
        }
        return outcome;
    }
    RunResult result = make_result(config);
    result.interrupted = interrupted;
    result.add(rank_stats);
    if (!rails.empty()) result.rails.push_back({0, rails});
    result.cpu.push_back({world.rank, process_cpu_time() - cpu_at_start});
    std::uint32_t gathered = 1;
    const std::uint32_t survivors = world.size - lost_count;
    std::vector<bool> heard(world.size, false);
    heard[0] = true;
    std::vector<std::string> refusals;   // ranks whose statistics cannot count, and why
    Picoseconds gather_deadline = steady_now() + config.grace;
    auto refuse = [&](std::uint32_t from, const std::string& why) {
        heard[from] = true;
        refusals.push_back(fmt::format("{} {}", boot.peer_name(from), why));
        log.warn("{}: {}", boot.peer_name(from), why);
    };
    while (gathered + refusals.size() < survivors && steady_now() < gather_deadline) {
        for (auto& in : boot.poll()) {
            if (lost[in.from] || heard[in.from]) continue;   // fenced: a rank declared lost counts no more
            const nlohmann::json& body = in.message.body;
            if (in.message.type == ControlType::link_lost) {
                refuse(in.from, "closed its control connection before its statistics came: " + body.at("error").get<std::string>());
                continue;
            }
            if (in.message.type != ControlType::stats) continue;
            try {
                RankStatistics r = read_rank_statistics(body, started_unix_s);
                result.add(r.stats);
                if (!r.rails.empty()) result.rails.push_back({in.from, std::move(r.rails)});
                result.cpu.push_back({in.from, r.cpu});
                heard[in.from] = true;
                ++gathered;
            } catch (const std::invalid_argument& e) {
                refuse(in.from, fmt::format("sent malformed statistics ({}): they were refused", e.what()));
            }
        }
        usleep(1000);
    }
    boot.broadcast(ControlType::bye);
    if (gathered < survivors)
        result.failure = fmt::format("only {} of {} {}ranks sent their statistics{}", gathered, survivors, lost_count ? "surviving " : "",
                                     refusals.empty() ? "" : fmt::format(" ({})", fmt::join(refusals, "; ")));
    result.elapsed = now;
    result.wall_seconds = now.seconds();
    result.started_unix_s = started_unix_s;
    result.placement = std::move(placements);
    result.origins = std::move(origins);
    outcome.result = std::move(result);
    return outcome;
}

} // namespace evb
