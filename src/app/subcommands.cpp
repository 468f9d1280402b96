#include "app/subcommands.hpp"

#include "netsim/commands/conflicts_command.hpp"
#include "netsim/commands/fabric_command.hpp"
#include "app/info_command.hpp"
#include "netsim/commands/netsim_command.hpp"
#include "drivers/registry/registry.hpp"

#include <algorithm>

namespace evb {
namespace {

int info(int argc, const char* const* argv, std::ostream& out) { return info_command(argc, argv, DriverRegistry(), out); }

constexpr Subcommand subcommands[] = {
    {"info", info_summary, info},
    {"fabric", netsim::fabric_summary, netsim::fabric_command},
    {"conflicts", netsim::conflicts_summary, netsim::conflicts_command},
    {"netsim", netsim::netsim_summary, netsim::netsim_command},
};

} // namespace

const Subcommand* find_subcommand(const std::string& name) {
    for (const auto& s : subcommands)
        if (name == s.name) return &s;
    return nullptr;
}

std::string subcommand_names() {
    std::string names;
    for (const auto& s : subcommands) {
        if (!names.empty()) names += ", ";
        names += s.name;
    }
    return names;
}

std::string subcommands_help() {
    std::string text = "\nCommands (evbench COMMAND --help, or evbench help COMMAND, for each one's flags):\n";
    for (const auto& s : subcommands) {
        std::string name = s.name;
        name.resize(std::max<std::size_t>(name.size() + 1, 12), ' ');
        text += "  " + name + s.summary + "\n";
    }
    return text;
}

} // namespace evb
