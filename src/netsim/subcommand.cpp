#include "subcommand.hpp"

#include "fabric_sim.hpp"
#include "routing.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

namespace evb::netsim {

int run_subcommand(CLI::App& app, int argc, const char* const* argv, std::ostream& out, const std::function<void()>& after_parse,
                   const std::function<int()>& body) {
    auto fail = [](const std::exception& e, int code) {
        std::cerr << "evbench: error: " << e.what() << "\n";
        return code;
    };
    try {
        app.parse(argc, argv);
        if (after_parse) after_parse();
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const std::exception& e) {
        return fail(e, 2);
    }
    try {
        return body();
    } catch (const SimCheckError& e) {
        return fail(e, 1);
    } catch (const std::invalid_argument& e) {
        return fail(e, 2);
    } catch (const RoutingError& e) {
        return fail(e, 2);
    }
}

} // namespace evb::netsim
