#include "app/info_command.hpp"

#include "core/build_info.hpp"
#include "core/json_file.hpp"
#include "core/machine_info.hpp"
#include "core/options.hpp"
#include "drivers/registry/registry.hpp"

#include <CLI/CLI.hpp>

namespace evb {

int info_command(int argc, const char* const* argv, const DriverRegistry& drivers, std::ostream& out) {
    std::string json_file;
    OptionSet options;
    options.begin_group("info", "Output");
    options.text("json", json_file, "FILE", "the same as JSON").writes_file();
    CLI::App app{std::string("evbench info: ") + info_summary, "evbench info"};
    options.attach(app);
    if (!options.parse(app, argc, argv, out)) return 0;
    options.check_files();
    options.take_stdout_if_asked();

    const MachineInfo machine = probe_machine();
    out << version_line() << "\n";
    print_machine(out, machine);
    nlohmann::json driver_json = nlohmann::json::object();
    for (const auto& e : drivers.entries()) {
        DriverProbe p = e.driver->probe();
        for (const auto& line : p.lines) out << line << "\n";
        driver_json[e.driver->name()] = p.json;
    }
    if (!json_file.empty()) write_json_file(json_file, {{"machine", machine_json(machine)}, {"drivers", driver_json}});
    return 0;
}

} // namespace evb
