#include "exec/distributed_run.hpp"

#include "control/bootstrap.hpp"
#include "exec/endpoint_thread.hpp"
#include "core/interrupt.hpp"
#include "core/json_fields.hpp"
#include "core/log.hpp"
#include "core/machine_info.hpp"
#include "core/printable_text.hpp"
#include "exec/rank_control.hpp"
#include "exec/rank_placement.hpp"
#include "exec/rank_statistics.hpp"
#include "exec/reactor.hpp"
#include "exec/run_loop.hpp"
#include "exec/stall_watchdog.hpp"
#include "exec/steady_report.hpp"

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
const Picoseconds control_period = Picoseconds::from_seconds(0.001);

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
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(fmt::format("rank {} sent {} that do not read: the text {}", rank, what, json_error_words(e)));
    } catch (const std::exception& e) { // the checks' std::invalid_argument, in evbench's words
        throw std::runtime_error(fmt::format("rank {} sent {} that do not read: {:.200}", rank, what, e.what()));
    }
}

// One rank of a distributed run, phase by phase: its endpoints and their placement, the
// exchange of addresses and registration cards through rank 0, the header, the run, and the
// statistics gathered at rank 0. Members in the order they must outlive each other.
class DistributedRank {
public:
    DistributedRank(const Config& config, const World& world, const std::string& fingerprint, const RunKey& key,
                    const RankTransports& transports, RunObserver& observer);
    void make_endpoints();
    void exchange_addresses_and_connect();
    void exchange_registration_cards();
    void announce();
    void run();
    RunOutcome finish();

private:
    NodeStats rank_statistics(std::vector<Transport::RailBytes>& rails);
    RunOutcome send_statistics(const NodeStats& stats, const std::vector<Transport::RailBytes>& rails, RunOutcome outcome);
    RunOutcome gather_statistics(const NodeStats& stats, std::vector<Transport::RailBytes> rails, RunOutcome outcome);

    const Config& config_;
    const World& world_;
    const std::string& fingerprint_;
    RunObserver& observer_;
    spdlog::logger& log_;
    std::unique_ptr<RunUnits> units_;
    const Layout& layout_;
    const std::string listen_host_;
    const RankTransports& transports_;
    const RunKey& key_;
    Bootstrap boot_;
    // Pools first, so they outlive every transport: closing may still land data in the pools a
    // transport registered (libfabric's tcp provider does, in fi_close, after a peer died). For
    // the same reason the node is declared before its transport.
    std::vector<std::unique_ptr<MemoryPool>> pools_;
    std::unique_ptr<Node> node_;
    // Declared before the transport, so it still watches while the transport closes.
    std::optional<StallWatchdog> watchdog_;
    const std::uint32_t first_endpoint_;
    std::unique_ptr<Transport> transport_;
    NicName nic_;
    UnitsOfRank first_units_;
    RankPlacement placed_;
    // --threads per-unit: the first endpoint's units stay on this thread, each further one gets
    // its own thread and transport.
    std::vector<std::unique_ptr<EndpointThread>> threads_;
    std::vector<std::string> addresses_;
    std::vector<RankPlacement> placements_;
    std::vector<RankOrigin> origins_;
    std::size_t cpus_here_ = 0, threads_here_ = 0; // this host's CPUs for the run, and its ranks' reactor threads
    PollMode poll_ = PollMode::adaptive; // --poll as this host runs it
    std::optional<RankEndpoints> endpoints_;
    std::optional<RankControl> control_;
    Picoseconds now_{};
    double started_unix_s_ = 0;
    CpuTime cpu_at_start_{};
};

int inherited_bootstrap_fd(const World& world) {
    const char* fd = std::getenv("EVBENCH_BOOTSTRAP_FD");
    return fd && world.rank == 0 ? std::atoi(fd) : -1;
}

std::unique_ptr<RunUnits> units_for(const Config& config, const World& world) {
    auto units = make_run_units(config);
    const Layout& layout = units->layout();
    if (layout.ranks() != world.size)
        throw ConfigError(fmt::format("{} ranks were started but nodes={} ppn={} em={} needs {}", world.size, config.nodes, config.ppn,
                                      to_string(config.em), layout.ranks()));
    return units;
}

DistributedRank::DistributedRank(const Config& config, const World& world, const std::string& fingerprint, const RunKey& key,
                                 const RankTransports& transports, RunObserver& observer)
    : config_(config), world_(world), fingerprint_(fingerprint), observer_(observer), log_(logger("evb")), units_(units_for(config, world)),
      layout_(units_->layout()), listen_host_(config.listen_host.empty() ? auto_listen_host(world) : config.listen_host),
      transports_(transports), key_(key),
      boot_(world, bootstrap_endpoint(config.bootstrap, world), inherited_bootstrap_fd(world), key, setup_timeout),
      first_endpoint_(layout_.first_endpoint_of(world.rank)) {}

// The transport of each endpoint, this thread placed near its NIC, the pools born there.
void DistributedRank::make_endpoints() {
    transport_ = transports_.make(listen_host_, first_endpoint_, layout_.endpoints());
    // Placement before the pools exist, so their pages are born on the chosen node; every rank's
    // read-back travels with its address to rank 0, for the header.
    nic_ = transport_->nic();
    if (nic_.empty()) nic_.interface = interface_with_address(listen_host_);
    const ThreadSlot slot = thread_slot(layout_, world_.rank, world_.local_rank, world_.local_ranks, first_endpoint_);
    cpus_here_ = current_thread_cpus().size(); // before this thread is pinned: what the host gives the run
    threads_here_ = slot.slots;
    poll_ = transports_.sleep ? poll_on_host(config_.poll, threads_here_, cpus_here_) : config_.poll;
    const PlacementPlan plan = place_this_thread(config_, slot.slot, slot.slots, nic_);
    UnitsOfRank mine = units_->units_of(world_.rank, pool_memory(config_, plan));
    pools_ = std::move(mine.pools);
    const bool per_unit = layout_.endpoint_per_unit();
    first_units_ = per_unit ? take_units(mine, layout_.units_on_endpoint(first_endpoint_)) : std::move(mine);
    for (std::uint32_t e = first_endpoint_ + 1; e < first_endpoint_ + layout_.endpoints_of(world_.rank); ++e) {
        const RankUnits which = layout_.units_on_endpoint(e);
        EndpointThread::Setup setup{
            config_, layout_,           log_, thread_slot(layout_, world_.rank, world_.local_rank, world_.local_ranks, e),
            nic_,    units_text(which), poll_};
        threads_.push_back(
            std::make_unique<EndpointThread>(setup, transports_.make(listen_host_, e, layout_.endpoints()), take_units(mine, which)));
    }
    placed_ = read_back_placement(world_.rank, plan, nic_, pools_of(first_units_), transport_->capabilities().pins_memory);
    if (per_unit) placed_.units = units_text(layout_.units_on_endpoint(first_endpoint_));
}

// Every rank's addresses, placements and origin through rank 0; then every endpoint connects.
void DistributedRank::exchange_addresses_and_connect() {
    nlohmann::json my_addresses = nlohmann::json::array({transport_->local_address()});
    nlohmann::json my_placements = nlohmann::json::array({placed_.to_json()});
    for (auto& t : threads_) {
        my_placements.push_back(t->placement().to_json()); // first: the thread is done with its transport until connect
        my_addresses.push_back(t->transport().local_address());
    }
    const auto setups = boot_.allgather(nlohmann::json{{"addresses", my_addresses},
                                                       {"placements", my_placements},
                                                       {"origin", this_process_origin(world_.rank, nic_).to_json()}}
                                            .dump(0, ' ', false, nlohmann::json::error_handler_t::replace),
                                        fingerprint_);
    for (std::size_t r = 0; r < setups.size(); ++r)
        read_setup_part(setups[r], r, "addresses and placements", [&](const nlohmann::json& j) {
            if (j.at("addresses").size() != layout_.endpoints_of(static_cast<std::uint32_t>(r)))
                throw std::invalid_argument(fmt::format("{} addresses for its {} endpoints", j.at("addresses").size(),
                                                        layout_.endpoints_of(static_cast<std::uint32_t>(r))));
            for (const auto& a : j.at("addresses")) addresses_.push_back(a.get<std::string>());
            for (const auto& p : j.at("placements")) placements_.push_back(RankPlacement::from_json(p));
            origins_.push_back(RankOrigin::from_json(j.at("origin")));
            if (origins_.back().rank != r)
                throw std::invalid_argument(fmt::format("its origin names rank {}", origins_.back().rank.value_or(0)));
        });
    // Every endpoint connects at once: one waiting for another's accept must not block it.
    for (auto& t : threads_) t->connect(addresses_);
    transport_->connect(addresses_, setup_timeout);
    for (auto& t : threads_) t->wait_connected();
    node_ = std::make_unique<Node>(std::move(first_units_), layout_, *transport_, log_);
    node_->survive_failures(config_.survives_failures());
}

// Every region is registered now: the cards of transports that need them (--rails) go round.
void DistributedRank::exchange_registration_cards() {
    nlohmann::json my_cards = nlohmann::json::array({transport_->registration_card()});
    for (auto& t : threads_) my_cards.push_back(t->transport().registration_card());
    std::vector<std::string> cards;
    const auto parts = boot_.allgather(my_cards.dump(), fingerprint_);
    for (std::size_t r = 0; r < parts.size(); ++r)
        read_setup_part(parts[r], r, "registration cards", [&](const nlohmann::json& j) {
            if (j.size() != layout_.endpoints_of(static_cast<std::uint32_t>(r)))
                throw std::invalid_argument(
                    fmt::format("{} cards for its {} endpoints", j.size(), layout_.endpoints_of(static_cast<std::uint32_t>(r))));
            for (const auto& c : j) cards.push_back(c.get<std::string>());
        });
    transport_->learn_registrations(cards);
    for (auto& t : threads_) t->transport().learn_registrations(cards);
}

// Rank 0's header: the transport, the run key, and where each rank runs; then all start together.
void DistributedRank::announce() {
    if (world_.rank == 0) {
        std::vector<std::string> details;
        if (std::string d = transport_->describe(); !d.empty()) details.push_back("# transport: " + d);
        details.push_back("# run key: " + key_.origin());
        if (poll_ != config_.poll)
            details.push_back(fmt::format("# poll: {} without its spin: {} reactor threads on {} cpus here would take each other's cores",
                                          to_string(config_.poll), threads_here_, cpus_here_));
        // Ranks on several hosts: each line says which, and where its transport listens.
        if (std::any_of(origins_.begin(), origins_.end(), [&](const RankOrigin& o) { return o.host != origins_.front().host; })) {
            std::size_t listening = 0; // placements and addresses: one per endpoint, in rank order
            for (auto& p : placements_) {
                const RankOrigin& o = origins_.at(p.rank);
                p.host = printable_text(o.host, 64) + (o.address.empty() ? "" : " (" + printable_text(o.address, 64) + ")") + " at " +
                    printable_text(addresses_.at(listening++), 80);
            }
        }
        for (const auto& line : placement_lines(placements_)) details.push_back(line);
        observer_.started(world_.size, world_.launcher, details);
    }
    boot_.barrier();
}

// The run: this rank's units on the run loop, the control plane every millisecond. A rank says
// "done" when it has nothing in flight, and may get work after (an assignment, a request): rank 0
// ends the run once every event is built, when what this rank posted since may still await its
// completion. After the finish the loop only completes that, before the statistics are taken;
// the control plane is left to the gather.
void DistributedRank::run() {
    Reactor reactor(poll_);
    reactor.add(*node_);
    endpoints_.emplace(*node_, threads_, layout_);
    control_.emplace(config_, world_, boot_, observer_, *endpoints_);
    RankControl& control = *control_;
    const Picoseconds origin = steady_now();
    started_unix_s_ = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    cpu_at_start_ = process_cpu_time();
    for (auto& t : threads_) t->go(origin);
    watchdog_.emplace(world_.rank, transport_->describe(), std::max(config_.grace, stall_limit_floor), config_.grace + closing_allowance);
    node_->start();
    auto drained = [&] { return control.interrupted() || control.fenced() || endpoints_->finished() || now_ >= control.deadline(); };
    RunLoop loop(reactor, origin);
    loop.every(Picoseconds(0), [&](Picoseconds now) {
        now_ = now;
        watchdog_->beat();
        if (control.finish()) return;
        if (!control.interrupted() && interrupt_signal()) control.end_now(interrupt_signal(), now, true);
        if (node_->failure()) {
            control.fail(*node_->failure());
            loop.end();
        }
    });
    loop.every(control_period, [&](Picoseconds now) {
        if (!control.finish()) control.tick(now);
        if (control.failure() || (control.finish() && drained())) loop.end();
    });
    loop.run();
    watchdog_->ending();
}

// This rank's counts, its endpoints summed; `rails`: its bytes per NIC (--rails).
NodeStats DistributedRank::rank_statistics(std::vector<Transport::RailBytes>& rails) {
    node_->stop();
    for (auto& t : threads_) t->stop();
    NodeStats stats = node_->stats();
    for (const auto& t : threads_) stats.merge(t->stats());
    rails = transport_->rail_bytes();
    for (auto& t : threads_) {
        const auto more = t->transport().rail_bytes();
        for (std::size_t i = 0; i < rails.size(); ++i) rails[i].bytes += more.at(i).bytes;
    }
    return stats;
}

RunOutcome DistributedRank::finish() {
    std::vector<Transport::RailBytes> rails;
    const NodeStats stats = rank_statistics(rails);
    RunOutcome outcome;
    outcome.rank = world_.rank;
    if (const auto& failure = control_->failure()) {
        outcome.rank_failure = failure;
        if (control_->fenced()) return outcome;
        // The receiver names the sender (by its link), so the text is the failure alone.
        if (world_.rank == 0)
            boot_.broadcast(ControlType::abort, {{"error", cut_text(*failure, max_text_field)}});
        else
            boot_.send_to_root(ControlType::abort, {{"error", cut_text(*failure, max_text_field)}});
        return outcome;
    }
    // Nobody closes its data connections before everyone has stopped using them: ranks wait for
    // rank 0's "bye", which it sends once every rank's statistics are in.
    if (world_.rank != 0) return send_statistics(stats, rails, std::move(outcome));
    return gather_statistics(stats, std::move(rails), std::move(outcome));
}

RunOutcome DistributedRank::send_statistics(const NodeStats& stats, const std::vector<Transport::RailBytes>& rails, RunOutcome outcome) {
    const CpuTime cpu = process_cpu_time() - cpu_at_start_;
    boot_.send_to_root(ControlType::stats, rank_statistics_body(stats, started_unix_s_, rails, cpu));
    Picoseconds bye_deadline = steady_now() + config_.grace;
    while (steady_now() < bye_deadline) {
        for (auto& in : boot_.poll())
            if (in.message.type == ControlType::bye || in.message.type == ControlType::link_lost) return outcome;
        usleep(1000);
    }
    return outcome;
}

// Rank 0: every surviving rank's statistics, or one line per rank that sent none or bad ones.
RunOutcome DistributedRank::gather_statistics(const NodeStats& stats, std::vector<Transport::RailBytes> rails, RunOutcome outcome) {
    RunResult result = make_result(config_);
    result.interrupted = control_->interrupted();
    result.add(stats);
    if (!rails.empty()) result.rails.push_back({0, std::move(rails)});
    result.cpu.push_back({world_.rank, process_cpu_time() - cpu_at_start_});
    std::uint32_t gathered = 1;
    const std::uint32_t survivors = world_.size - control_->lost_count();
    std::vector<bool> heard(world_.size, false);
    heard[0] = true;
    std::vector<std::string> refusals; // ranks whose statistics cannot count, and why
    Picoseconds gather_deadline = steady_now() + config_.grace;
    auto refuse = [&](std::uint32_t from, const std::string& why) {
        heard[from] = true;
        refusals.push_back(fmt::format("{} {}", boot_.peer_name(from), why));
        log_.warn("{}: {}", boot_.peer_name(from), why);
    };
    while (gathered + refusals.size() < survivors && steady_now() < gather_deadline) {
        for (auto& in : boot_.poll()) {
            if (control_->lost(in.from) || heard[in.from]) continue; // fenced: a rank declared lost counts no more
            const nlohmann::json& body = in.message.body;
            if (in.message.type == ControlType::link_lost) {
                refuse(in.from, "closed its control connection before its statistics came: " + body.at("error").get<std::string>());
                continue;
            }
            if (in.message.type != ControlType::stats) continue;
            try {
                RankStatistics r = read_rank_statistics(body, started_unix_s_);
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
    boot_.broadcast(ControlType::bye);
    if (gathered < survivors)
        result.failure =
            fmt::format("only {} of {} {}ranks sent their statistics{}", gathered, survivors, control_->lost_count() ? "surviving " : "",
                        refusals.empty() ? "" : fmt::format(" ({})", fmt::join(refusals, "; ")));
    result.elapsed = now_;
    result.wall_seconds = now_.seconds();
    result.started_unix_s = started_unix_s_;
    result.placement = std::move(placements_);
    result.origins = std::move(origins_);
    outcome.result = std::move(result);
    if (const auto verdict = control_->steady_verdict()) add_steady_report(outcome, *verdict, config_);
    return outcome;
}

} // namespace

RunOutcome run_distributed(const Config& config, const World& world, const std::string& fingerprint, const RunKey& key,
                           const RankTransports& transports, RunObserver& observer) {
    DistributedRank rank(config, world, fingerprint, key, transports, observer);
    rank.make_endpoints();
    rank.exchange_addresses_and_connect();
    rank.exchange_registration_cards();
    rank.announce();
    rank.run();
    return rank.finish();
}

} // namespace evb
