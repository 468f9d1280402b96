// The command line and config files (TOML or INI through CLI11): every parameter is declared
// once here with its default, unit and help, and bound to a Config field. Unknown flags or
// config keys and bad values throw ConfigError with one line naming them.
#pragma once
#include "config.hpp"

#include <optional>
#include <ostream>

namespace evb {

// Returns nullopt when help was printed (exit 0).
std::optional<Config> parse_command_line(int argc, const char* const* argv, std::ostream& help_out);

} // namespace evb
