#include "exec/run_config.hpp"

#include "core/config_error.hpp"
#include "core/cpu_list.hpp"
#include "core/output_file.hpp"
#include "core/quantity.hpp"
#include "core/socket_util.hpp"
#include "units/config_options.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

namespace evb {
namespace {

// The transport's view of the units' checks, the heartbeat, the grace to end in.
void check_run_control(const Config& c) {
    if (c.fragment_memory && c.fragment_stride() < c.wire_fragment_stride() && c.verify == Verify::full)
        throw ConfigError("--verify full needs whole fragments in memory; transport " + c.transport + " keeps fragment headers only");
    if (c.progress_interval <= Picoseconds(0)) throw ConfigError("--progress-interval must be positive");
    if (c.format != ReportFormat::table && c.json_file == stdout_file)
        throw ConfigError(std::string("--json - and --format ") + (c.format == ReportFormat::csv ? "csv" : "kv") +
                          " both write to standard output: give --json a file");
    if (!c.bootstrap.empty()) {
        int port = 0;
        try {
            port = split_host_port(c.bootstrap).second;
        } catch (const std::invalid_argument& e) {
            throw ConfigError(std::string("--bootstrap: ") + e.what());
        }
        if (port == 0)
            throw ConfigError("--bootstrap " + c.bootstrap +
                              ": port 0 is no port the ranks can find; give one, or leave --bootstrap out and the launcher picks one");
    }
    if (c.heartbeat < Picoseconds(0)) throw ConfigError("--heartbeat cannot be negative");
    if (c.until == Until::steady) {
        if (c.events) throw ConfigError("--until steady stops when the rate is known: not with --events");
        if (c.is_micro_benchmark()) throw ConfigError("--until steady: for event building, not --benchmark " + to_string(c.benchmark));
        if (c.survives_failures()) throw ConfigError("--until steady: not with --on-failure continue (a loss moves the rate)");
        if (!(c.steady_bound_percent > 0 && c.steady_bound_percent <= 50))
            throw ConfigError(fmt::format("--steady-bound {:g}: give a half-width between 0 and 50 %", c.steady_bound_percent));
        if (c.target_gbps < 0) throw ConfigError("--target cannot be negative");
    }
    // A run ends within its duration plus the grace, in which the last writes drain and rank 0
    // gathers every rank's statistics: below this, a healthy run would end as a failure.
    if (c.grace < Picoseconds::from_seconds(0.1))
        throw ConfigError("--grace " + format_duration(c.grace) + ": the ranks need at least 100ms after the duration to drain and report");
}

// NICs, threads, CPUs and NUMA nodes.
void check_placement(const Config& c) {
    if (!c.rails.empty() && (c.rails.front() == ',' || c.rails.back() == ',' || c.rails.find(",,") != std::string::npos))
        throw ConfigError("--rails: '" + c.rails + "' has an empty NIC name (give names separated by commas: rxe0,rxe1)");
    if (c.threads == UnitThreads::per_unit && c.survives_failures())
        throw ConfigError(
            "--threads per-unit cannot be combined with --on-failure continue yet: a lost process is several endpoints; use --threads 1");
    if ((!c.cpus.empty() || !c.numa.empty()) && c.placement != PlacementMode::manual)
        throw ConfigError(std::string(c.cpus.empty() ? "--numa" : "--cpus") +
                          " needs --placement manual (auto finds the NIC's node itself)");
    if (!c.cpus.empty()) {
        try {
            (void)parse_cpu_list(c.cpus);
        } catch (const std::invalid_argument& e) {
            throw ConfigError(std::string("--cpus: ") + e.what());
        }
    }
    if (!c.numa.empty() && c.numa.find_first_not_of("0123456789") != std::string::npos)
        throw ConfigError("--numa: '" + c.numa + "' is not a NUMA node number");
}

// How a run ends and is watched: in the units' group, after theirs.
void declare_run_control_options(OptionSet& o, Config& c) {
    o.duration("heartbeat", c.heartbeat, "declare a rank lost when it sends nothing for this long (finds stopped processes)")
        .shown_default("0: off");
    o.duration("grace", c.grace, "time to drain and gather after the duration before the run fails");
    o.duration("progress-interval", c.progress_interval, "time between progress lines");
    o.choice("until", c.until, {{"duration", Until::duration}, {"steady", Until::steady}},
             "duration: stop at --duration; steady: stop once every BU has built events past the start-up and the built rate per "
             "node is known within --steady-bound (batch means), --duration the cap (default 60 s, simulated 10 s; docs/steady-state.md)");
    o.real("steady-bound", c.steady_bound_percent, "PCT", "--until steady: the 95 % half-width of the built rate, in % of it")
        .applies_when("--until steady", [&c] { return c.until == Until::steady; });
    o.whole("steady-events", c.steady_events, "N", "--until steady: the events every BU must build in the steady window")
        .above_zero()
        .applies_when("--until steady", [&c] { return c.until == Until::steady; });
    o.real("target", c.target_gbps, "Gb/s", "--until steady: the built rate per node the detector must carry; the verdict says met or not")
        .shown_default("none")
        .applies_when("--until steady", [&c] { return c.until == Until::steady; });
}

// Placement on a real node: pools, threads, NICs, polling.
void declare_placement_options(OptionSet& o, Config& c) {
    o.begin_group("placement", "Placement on a real node");
    o.choice("placement", c.placement,
             {{"auto", PlacementMode::automatic}, {"none", PlacementMode::none}, {"manual", PlacementMode::manual}},
             "auto: pools on the NIC's NUMA node and each rank's thread on its own core there; none: leave both to the kernel; "
             "manual: --cpus and --numa")
        .per_rank();
    o.text("cpus", c.cpus, "LIST", "with --placement manual: the CPUs (0-3,8) the ranks of a host pin their threads to, in turn")
        .shown_default("")
        .per_rank();
    o.text("numa", c.numa, "N", "with --placement manual: the NUMA node every pool is bound to").shown_default("first touch").per_rank();
    o.choice("hugepages", c.hugepages, {{"auto", HugePages::automatic}, {"on", HugePages::on}, {"off", HugePages::off}},
             "pools in huge pages: auto takes them when enough are free, else transparent huge pages; on insists; off never")
        .per_rank();

    o.text("rails", c.rails, "NIC,NIC",
           "one transport per NIC (verbs: RDMA devices; ofi: domains; ucx: devices; tcp: interfaces), every pool registered "
           "on each, each write to a peer on the next NIC in turn; bytes per NIC in the footer")
        .shown_default("one NIC");
    o.choice("threads", c.threads, {{"1", UnitThreads::one}, {"per-unit", UnitThreads::per_unit}},
             "1: one reactor thread drives every unit of a process; per-unit: each unit (RU, BU, EM) its own thread and "
             "transport endpoint, pinned apart (multi-process transports except mpi and psm2)");
    o.choice("poll", c.poll, {{"spin", PollMode::spin}, {"adaptive", PollMode::adaptive}, {"event", PollMode::event}},
             "when a rank finds nothing to do: spin (poll again, a core per rank), event (sleep on the transport's wait object "
             "at once), adaptive (spin 20 us, then sleep; leaves the core to a neighbour; a transport with no wait object naps "
             "50 us at a time while nothing of its own is in flight; where a host has more ranks' threads than CPUs, sleep at "
             "once). See docs/performance.md")
        .applies_when("a multi-process transport (the in-process ones have no threads that wait)",
                      [&c] { return c.transport != "local" && c.transport != "sim"; })
        .per_rank();
}

// Launching and logging (the output's options are the report's: src/report/report_options.cpp).
void declare_launch_options(OptionSet& o, Config& c) {
    o.begin_group("control", "Launching and logging");
    o.text("bootstrap", c.bootstrap, "HOST:PORT", "rank 0's bootstrap service (see \"Launching on a cluster\")")
        .shown_default("$EVBENCH_BOOTSTRAP, or 127.0.0.1 and a port from the job id")
        .per_rank();
    o.text("run-key-file", c.run_key_file, "FILE",
           "the run's shared secret, at least 32 characters in a file only its owner may read: every connection between the "
           "ranks proves it (docs/security.md)")
        .reads_file()
        .shown_default("$EVBENCH_RUN_KEY, else one the local launcher makes, else derived from the job id")
        .per_rank();
    o.text("listen-host", c.listen_host, "ADDR", "address this rank's data transport listens on")
        .shown_default("127.0.0.1 on one host, else the hostname")
        .per_rank();
    o.whole("launch-local", c.launch_local, "N", "fork N ranks on this machine (multi-process transports)").shown_default("").per_rank();
    o.whole("launch-hosts", c.launch_hosts, "M",
            "a run of M hosts that each run --launch-local N with the same --bootstrap and run key: M x N ranks, host I launches "
            "ranks I N .. I N + N - 1 (docs/cluster.md)")
        .applies_when("--launch-local", [&c] { return c.launch_local > 0; })
        .per_rank();
    o.whole("host-index", c.host_index, "I", "with --launch-hosts M: this host's place, 0..M-1; host 0 runs rank 0 and serves --bootstrap")
        .applies_when("--launch-hosts", [&c] { return c.launch_hosts > 1; })
        .per_rank();
    o.text("log-level", c.log_level, "L", "trace, debug, info, warn, error or off").per_rank();
}

} // namespace

void declare_config_options(OptionSet& o, Config& c) {
    o.begin_group("run", "Event building");
    o.text("transport", c.transport, "NAME", "transport driver (see \"Transports\"; `evbench --help` lists those built)");
    declare_unit_options(o, c);
    declare_run_control_options(o, c);
    declare_placement_options(o, c);
    declare_launch_options(o, c);
}

void derive_config_defaults(Config& c, const OptionSet& o) {
    derive_unit_defaults(c, o);
    // --until steady finds the start-up's end itself, and --duration is only its cap.
    if (c.until == Until::steady) {
        if (!o.given("warmup")) c.warmup = Picoseconds(0);
        if (!o.given("duration")) c.duration = Picoseconds::from_seconds(60);
    }
}

void validate(const Config& c) {
    validate(static_cast<const UnitConfig&>(c));
    check_run_control(c);
    check_placement(c);
}

std::string to_string(PollMode m) { return m == PollMode::spin ? "spin" : m == PollMode::adaptive ? "adaptive" : "event"; }

} // namespace evb
