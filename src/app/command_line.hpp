// evbench's run command line: the run's options (units/config_options.cpp) and every driver's
// (drivers/<name>/), declared once each, attached to CLI11 for flags and config files.
#pragma once
#include "config.hpp"
#include "options.hpp"
#include "registry.hpp"

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
    // What every rank must share (checked at the bootstrap).
    std::string fingerprint() const;
    // Throws ConfigError on the first option given that this run would ignore: one of another
    // transport's options, or one whose declaration says it does not apply (applies_when).
    void refuse_what_does_not_apply() const;
};

} // namespace evb
