// The frame every simulator subcommand (conflicts, fabric, netsim) shares: parse the flags
// (help -> 0; a bad flag, or what `after_parse` refuses -> one line, exit 2), then run the body:
// bad input it meets (std::invalid_argument, incl. DumpError, and RoutingError) is one line and
// exit 2, a broken model invariant (SimCheckError) one line and exit 1.
#pragma once
#include <functional>
#include <ostream>

namespace CLI {
class App;
}

namespace evb::netsim {

int run_subcommand(CLI::App& app, int argc, const char* const* argv, std::ostream& out, const std::function<void()>& after_parse,
                   const std::function<int()>& body);

} // namespace evb::netsim
