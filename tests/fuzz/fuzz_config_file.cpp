// evbench's config files (TOML or INI through --config), with every run option declared.
#include "exec/run_config.hpp"
#include "fuzz_input.hpp"
#include "report/report_options.hpp"

#include <CLI/CLI.hpp>

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = evb::fuzz::as_file(data, size, ".toml");
    evb::Config config;
    evb::OptionSet options;
    evb::declare_config_options(options, config);
    evb::declare_report_options(options, config);
    CLI::App app{"fuzz"};
    app.set_config("--config");
    options.attach(app);
    const char* argv[] = {"evbench", "--config", path.c_str()};
    std::ostringstream help;
    try {
        if (options.parse(app, 3, argv, help)) {
            if (config.nodes == 0) config.nodes = 4;
            evb::validate(config);
        }
    } catch (const evb::ConfigError&) {}
    return 0;
}
