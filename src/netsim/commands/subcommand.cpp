#include "netsim/commands/subcommand.hpp"

#include "netsim/engine/fabric_sim.hpp"
#include "core/options.hpp"
#include "core/printable_text.hpp"
#include "netsim/fabric/routing.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

namespace evb::netsim {

int run_subcommand(const std::string& about, OptionSet& options, int argc, const char* const* argv, std::ostream& out,
                   const std::function<void()>& after_parse, const std::function<int()>& body) {
    auto fail = [](const std::exception& e, int code) {
        std::cerr << "evbench: error: " << printable_text(e.what(), error_line_limit) << "\n";
        return code;
    };
    try {
        CLI::App app{about, std::string("evbench ") + argv[0]};
        app.set_config("--config", "", "read options from a TOML or INI file (keys = long flag names)");
        options.attach(app);
        if (!options.parse(app, argc, argv, out)) return 0;
        options.check_files();
        options.take_stdout_if_asked();
        if (after_parse) after_parse();
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
