// evbench's run command line: the run's options (units/config_options.cpp) and every driver's
// (drivers/<name>/), declared once each, attached to CLI11 for flags and config files.
#pragma once
#include "exec/run_config.hpp"
#include "core/options.hpp"
#include "drivers/registry/registry.hpp"

#include <ostream>

namespace evb {

struct CommandLine {
    Config config;
    OptionSet options;
    DriverRegistry drivers;

    CommandLine();
    // Returns false when help was printed. Throws ConfigError on bad input.
    bool parse(int argc, const char* const* argv, std::ostream& help_out);
    // The effective configuration: every echoed option and the derived values (shared_only: only
    // what every rank must agree on).
    nlohmann::json echo(bool shared_only = false) const;
    // How the run was asked for, for its result: the command line, the options given (on it or in
    // a config file) by flag name, which `--config RESULT.json` reads back, and the launcher.
    nlohmann::json invocation(int argc, const char* const* argv, const std::string& launcher) const;
    // What every rank must share (checked at the bootstrap).
    std::string fingerprint() const;
    // Throws ConfigError on the first option given that this run would ignore: one of another
    // transport's options, or one whose declaration says it does not apply (applies_when).
    void refuse_what_does_not_apply() const;
};

} // namespace evb
