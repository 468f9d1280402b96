// The frame every simulator subcommand (conflicts, fabric, netsim) shares: attach the declared
// options, parse them (help -> 0; a bad flag, or what `after_parse` refuses -> one line, exit 2),
// then run the body:
// bad input it meets (std::invalid_argument, incl. DumpError, and RoutingError) is one line and
// exit 2, a broken model invariant (SimCheckError) one line and exit 1.
#pragma once
#include <functional>
#include <ostream>
#include <string>

namespace evb {
class OptionSet;
}

namespace evb::netsim {

// `about`: the first line of --help; the command name is argv[0].
int run_subcommand(const std::string& about, OptionSet& options, int argc, const char* const* argv, std::ostream& out,
                   const std::function<void()>& after_parse, const std::function<int()>& body);

} // namespace evb::netsim
