// evbench's subcommands besides the event builder: the one table that main dispatches on, that
// `evbench --help` lists and that `evbench help COMMAND` looks up.
#pragma once
#include <ostream>
#include <string>

namespace evb {

struct Subcommand {
    const char* name;
    const char* summary; // one line for `evbench --help`
    int (*run)(int argc, const char* const* argv, std::ostream& out); // argv[0] is the name
};

const Subcommand* find_subcommand(const std::string& name); // nullptr when there is none
std::string subcommand_names(); // "info, fabric, conflicts, netsim"
std::string subcommands_help(); // the --help paragraph

} // namespace evb
