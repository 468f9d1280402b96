#include "drivers/registry/registry.hpp"

#include "core/config_error.hpp"
#include "exec/distributed_run.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "core/options.hpp"
#include "drivers/transport/rails_transport.hpp"
#include "drivers/sim/sim_driver.hpp"
#include "drivers/tcp/tcp_driver.hpp"
#ifdef EVB_HAVE_MPI
#include "drivers/mpi/mpi_alltoall.hpp"
#include "drivers/mpi/mpi_driver.hpp"
#endif
#ifdef EVB_HAVE_VERBS
#include "drivers/verbs/verbs_driver.hpp"
#endif
#ifdef EVB_HAVE_OFI
#include "drivers/ofi/ofi_driver.hpp"
#endif
#ifdef EVB_HAVE_UCX
#include "drivers/ucx/ucx_driver.hpp"
#endif
#ifdef EVB_HAVE_PSM2
#include "drivers/psm2/psm2_driver.hpp"
#endif

#include <set>

namespace evb {
namespace {

DriverEntry in_process_entry(std::unique_ptr<Driver> driver, bool is_default) {
    const Driver* d = driver.get();
    DriverEntry e;
    e.driver = std::move(driver);
    e.is_default = is_default;
    e.run = [d](const Config& c, const RunContext& ctx) {
        return run_in_process(c, d->make_all(Layout::from_config(c).ranks()), ctx.observer);
    };
    e.per_unit_refusal = "it runs every rank on one reactor in one process: use a multi-process transport (tcp, verbs, ofi, ucx)";
    return e;
}

DriverEntry per_rank_entry(std::unique_ptr<Driver> driver) {
    Driver* d = driver.get();
    DriverEntry e;
    e.driver = std::move(driver);
    e.run = [d](const Config& c, const RunContext& ctx) {
        const World& w = *ctx.world;
        d->use_run_key(*ctx.key);
        d->use_heartbeat(c.heartbeat);
        return run_distributed(
            c, w, ctx.fingerprint, *ctx.key,
            {[&](const std::string& host, std::uint32_t endpoint, std::uint32_t endpoints) -> std::unique_ptr<Transport> {
                 if (c.rails.empty()) return d->make_one(endpoint, endpoints, host);
                 return RailsTransport::make(*d, endpoint, endpoints, c.rails);
             },
             !*d->no_wait_object()},
            ctx.observer);
    };
    return e;
}

} // namespace

DriverRegistry::DriverRegistry() {
    entries_.push_back(in_process_entry(std::make_unique<LocalDriver>(), true));

    auto sim = std::make_unique<SimDriver>();
    SimDriver* s = sim.get();
    DriverEntry sim_entry;
    sim_entry.driver = std::move(sim);
    sim_entry.simulated_time = true;
    sim_entry.per_unit_refusal = "simulated nodes have no threads: the simulator models the network, not the hosts' CPUs";
    sim_entry.run = [s](const Config& c, const RunContext& ctx) { return run_simulated(c, s->options(), ctx.observer); };
    sim_entry.complete = [s](Config& c, const OptionSet& given) { s->complete(c, given); };
    entries_.push_back(std::move(sim_entry));

#ifdef EVB_HAVE_VERBS
    entries_.push_back(per_rank_entry(std::make_unique<VerbsDriver>()));
#endif
#ifdef EVB_HAVE_OFI
    entries_.push_back(per_rank_entry(std::make_unique<OfiDriver>()));
#endif
#ifdef EVB_HAVE_UCX
    entries_.push_back(per_rank_entry(std::make_unique<UcxDriver>()));
#endif
#ifdef EVB_HAVE_PSM2
    DriverEntry psm2_entry = per_rank_entry(std::make_unique<Psm2Driver>());
    psm2_entry.per_unit_refusal = "PSM2 opens one endpoint per process unless PSM2_MULTI_EP=1, which cannot be tested without an "
                                  "Omni-Path adapter: use --ppn 2";
    entries_.push_back(std::move(psm2_entry));
#endif
#ifdef EVB_HAVE_MPI
    auto mpi = std::make_unique<MpiDriver>();
    const MpiDriver* m = mpi.get();
    DriverEntry mpi_entry = per_rank_entry(std::move(mpi));
    // An MPI rank is a process: two endpoints in one would need MPI_THREAD_MULTIPLE and a
    // communicator per endpoint pair, which is no longer the MPI the user measures.
    mpi_entry.per_unit_refusal = "an MPI rank is a process (endpoints per thread would need MPI_THREAD_MULTIPLE): use --ppn 2";
    mpi_entry.launch_local_refusal = "MPI's ranks are started by its own launcher: mpirun -np N evbench --transport mpi, or srun";
    mpi_entry.instead = [m](Config& c, const OptionSet& options, const std::optional<World>& world,
                            const std::function<nlohmann::json()>& echo, std::ostream& out) -> std::optional<int> {
        const std::string& baseline = m->options().baseline;
        if (baseline.empty()) return std::nullopt;
        if (baseline != "alltoall") throw ConfigError("--baseline: unknown baseline '" + baseline + "' (choose alltoall)");
        // It replaces the event builder: every other option would be ignored.
        const std::set<std::string> reads{"baseline", "fragment-size", "events", "duration", "quiet", "json", "config", "log-level"};
        for (const std::string& name : options.given_names())
            if (!reads.contains(name) && !(name == "transport" && c.transport == "mpi"))
                throw ConfigError("--" + name +
                                  ": does not apply to --baseline alltoall, which reads only --fragment-size, --events, "
                                  "--duration, --quiet and --json");
        if (!world || world->launcher == "evbench --launch-local")
            throw ConfigError("--baseline alltoall runs under mpirun or srun --mpi=pmix");
        if (c.nodes == 0) c.nodes = world->size;
        return run_alltoall_baseline({c.fragment_size, c.events, c.duration.seconds(), world->size, c.json_file, echo(), c.quiet}, out);
    };
    // Paper 003 sec. 2.3: why DAQPIPE is not built on MPI collectives. Open MPI aborts the whole
    // job when a rank dies, so surviving is refused up front rather than promised.
    mpi_entry.complete = [](Config& c, const OptionSet&) {
        if (c.survives_failures())
            throw ConfigError("--on-failure continue: MPI cannot survive a lost rank (the launcher aborts the whole job); "
                              "use --transport tcp, verbs, ofi or ucx to measure failover");
    };
    entries_.push_back(std::move(mpi_entry));
#endif
    entries_.push_back(per_rank_entry(std::make_unique<TcpDriver>()));
}

const DriverEntry* DriverRegistry::find(const std::string& name) const {
    for (const auto& e : entries_)
        if (name == e.driver->name()) return &e;
    return nullptr;
}

const DriverEntry& DriverRegistry::default_entry() const {
    for (const auto& e : entries_)
        if (e.is_default) return e;
    return entries_.front();
}

std::string DriverRegistry::names() const {
    std::string s;
    for (const auto& e : entries_) (s += s.empty() ? "" : ", ") += e.driver->name();
    return s;
}

void DriverRegistry::declare_options(OptionSet& options) {
    for (auto& e : entries_) {
        const auto before = options.groups().size();
        options.begin_group(e.driver->name(), std::string("Transport ") + e.driver->name());
        e.driver->declare_options(options);
        const auto groups = options.groups();
        for (auto i = before; i < groups.size(); ++i) group_owners_.emplace_back(groups[i], e.driver.get());
    }
}

const Driver* DriverRegistry::owner_of(const std::string& group) const {
    for (const auto& [g, d] : group_owners_)
        if (g == group) return d;
    return nullptr;
}

} // namespace evb
