// The configuration of a whole run: what the units are configured with (units/config.hpp) and
// the run's other options, which the executor, the report and the launcher read: where each
// rank's pools and thread go, how idle ranks wait, how ranks find each other, what is printed.
// Each part declares and checks its own options (declare_config_options, validate).
#pragma once
#include "core/options.hpp"
#include "core/placement.hpp"
#include "exec/poll_mode.hpp"
#include "units/config.hpp"

#include <cstdint>
#include <string>

namespace evb {

// The final table's node rows: every node up to table_rows_in_full nodes, else the slowest, median
// and fastest (automatic); every node (all).
enum class TableRows { automatic, all };
// What standard output carries at the end: the table (table); for scripts, only the run as a CSV
// header and row (csv) or as one key=value line (kv), the rest going to standard error.
enum class ReportFormat { table, csv, kv };
// When a timed run stops: at --duration, or once its built rate is known (--duration the cap).
enum class Until { duration, steady };
constexpr std::uint32_t table_rows_in_full = 32;

struct Config : UnitConfig {
    std::string transport; // a driver of drivers/registry (its default entry unless given)
    Picoseconds grace = Picoseconds::from_seconds(10); // after the planned end, to drain and gather
    Picoseconds progress_interval = Picoseconds::from_seconds(1);
    // A rank that sends nothing on the control channel for this long is declared lost (0: off):
    // the only way to tell a stopped or hung process from a slow one.
    Picoseconds heartbeat{};
    Until until = Until::duration;
    double steady_bound_percent = 1; // --until steady: the half-width, in % of the rate
    std::uint32_t steady_events = 10; // --until steady: events every BU builds in the steady window
    double target_gbps = 0; // built Gb/s per node the verdict is held against (0: none)
    std::string json_file;
    std::string bootstrap; // host:port of rank 0's bootstrap service
    std::string run_key_file; // the secret every connection between ranks proves (else $EVBENCH_RUN_KEY)
    std::string listen_host; // data transport address; empty: 127.0.0.1 on one host, else hostname
    // Placement on a real node (docs/usage.md): each rank's pools and thread.
    PlacementMode placement = PlacementMode::automatic;
    std::string cpus; // manual: CPU list its ranks' threads take in turn
    std::string numa; // manual: the NUMA node of every pool ("" = first touch)
    HugePages hugepages = HugePages::automatic;
    std::string rails; // NICs, comma-separated: one transport per NIC, writes spread over them
    PollMode poll = PollMode::adaptive; // when idle: spin, or sleep in the transport (Reactor::idle)
    std::uint32_t launch_local = 0; // fork this many processes on this machine
    std::uint32_t launch_hosts = 1; // hosts that each run --launch-local with the same count
    std::uint32_t host_index = 0; // this host's place among them (0: rank 0's, the bootstrap's)
    bool quiet = false; // the summary only: no header, progress lines or node rows
    TableRows rows = TableRows::automatic;
    ReportFormat format = ReportFormat::table;
    std::string log_level = "warn";
};

// Every flag of the run but the drivers' and the report's: the transport, the units'
// (declare_unit_options) and the run's grace, progress and heartbeat, then placement, launching
// and logging.
void declare_config_options(OptionSet& options, Config& config);
// After parsing: the defaults of flags not given that depend on those given.
void derive_config_defaults(Config& config, const OptionSet& options);
// Throws ConfigError. Call after nodes is known.
void validate(const Config& config);

} // namespace evb
