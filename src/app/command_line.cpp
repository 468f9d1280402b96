#include "command_line.hpp"

#include "config_options.hpp"

#include <CLI/CLI.hpp>

namespace evb {

CommandLine::CommandLine() {
    declare_config_options(options, config);
    drivers.declare_options(options);
}

bool CommandLine::parse(int argc, const char* const* argv, std::ostream& help_out) {
    CLI::App app{"evbench: event-building network benchmark (RU/BU/EM over a pluggable transport; built: " + drivers.names() + ")",
                 "evbench"};
    app.set_config("--config", "", "read options from a TOML or INI file (keys = long flag names)");
    options.attach(app);
    if (!options.parse(app, argc, argv, help_out)) return false;
    // With only --events, the run is not cut short by the default duration.
    if (config.events && !options.given("duration")) config.duration = Picoseconds(0);
    return true;
}

nlohmann::json CommandLine::echo() const {
    nlohmann::json j = options.echo({"run", "control", config.transport});
    j.update(derived_json(config));
    return j;
}

std::string CommandLine::fingerprint() const {
    nlohmann::json j = options.echo({"run", "control", config.transport}, true);
    j.update(derived_json(config));
    return j.dump();
}

} // namespace evb
