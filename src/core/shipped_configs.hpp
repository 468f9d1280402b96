// The configuration files that come with evbench (configs/ in the source tree, share/evbench/configs
// once installed): `--config lhcb-512-k16` finds one by its name from any directory.
#pragma once
#include <string>
#include <vector>

namespace evb {

// Where the shipped configs are, nearest first: beside the installed binary
// (PREFIX/bin/evbench -> PREFIX/share/evbench/configs), then the source tree it was built from.
std::vector<std::string> shipped_config_dirs();

// The file --config VALUE reads: VALUE itself when it names a file or holds a '/'; else the
// shipped config of that name (with or without ".toml"); else VALUE, whose reading then fails
// naming it.
std::string resolve_config_path(const std::string& value);

// The shipped configs' names, for an error line ("none found" when there is no such folder).
std::string shipped_config_names();

} // namespace evb
