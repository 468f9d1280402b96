#include "app/command_line.hpp"

#include "core/build_info.hpp"
#include "exec/run_config.hpp"
#include "core/quantity.hpp"
#include "report/report_options.hpp"
#include "app/subcommands.hpp"

#include <CLI/CLI.hpp>

namespace evb {

CommandLine::CommandLine() {
    config.transport = drivers.default_entry().driver->name(); // before the declaration: its shown default
    declare_config_options(options, config);
    declare_report_options(options, config);
    drivers.declare_options(options);
}

bool CommandLine::parse(int argc, const char* const* argv, std::ostream& help_out) {
    CLI::App app{"evbench: event-building network benchmark (RU/BU/EM over a pluggable transport; built: " + drivers.names() + ")",
                 "evbench"};
    app.set_version_flag("-V,--version", version_line(), "print the version, the git commit built from and the drivers compiled in");
    app.set_config("--config", "",
                   "read options from a TOML or INI file (keys = long flag names), or from a result of --json (its run's options again)");
    std::string transports = "\nTransports built (--transport NAME):\n";
    for (const auto& e : drivers.entries()) transports += "  " + std::string(e.driver->name()) + ": " + e.driver->help() + "\n";
    app.footer(transports + subcommands_help() + "\n" + quantity_units_help());
    options.attach(app);
    if (!options.parse(app, argc, argv, help_out)) return false;
    derive_config_defaults(config, options);
    return true;
}

namespace {
// Every group but those of drivers the run does not use.
std::vector<std::string> groups_in_use(const OptionSet& options, const DriverRegistry& drivers, const std::string& transport) {
    std::vector<std::string> used;
    for (const auto& g : options.groups()) {
        const Driver* owner = drivers.owner_of(g);
        if (!owner || owner->name() == transport) used.push_back(g);
    }
    return used;
}
} // namespace

nlohmann::json CommandLine::echo(bool shared_only) const {
    nlohmann::json j = options.echo(groups_in_use(options, drivers, config.transport), shared_only);
    j.update(derived_json(config));
    return j;
}

nlohmann::json CommandLine::invocation(int argc, const char* const* argv, const std::string& launcher) const {
    return {{"command_line", std::vector<std::string>(argv, argv + argc)}, {"options", options.given_texts()}, {"launcher", launcher}};
}

std::string CommandLine::fingerprint() const { return echo(true).dump(); }

void CommandLine::refuse_what_does_not_apply() const {
    for (const auto& g : options.groups()) {
        const Driver* owner = drivers.owner_of(g);
        if (!owner || owner->name() == config.transport) continue;
        const auto given = options.given_in(g);
        if (!given.empty())
            throw ConfigError("--" + given.front() + " is an option of --transport " + owner->name() + "; this run's transport is " +
                              config.transport + " (it would ignore it)");
    }
    options.refuse_inapplicable();
}

} // namespace evb
