#include "core/json_file.hpp"

#include "core/build_info.hpp"
#include "core/output_file.hpp"

namespace evb {

void write_json_file(const std::string& path, const nlohmann::json& doc) {
    nlohmann::json out = doc;
    if (out.is_object()) out["evbench"] = build_info_json(); // which binary wrote it
    // Text from outside (a host name, an environment variable, the command line) may not be UTF-8:
    // written with U+FFFD in its place, never a failed dump.
    write_output_file(path, "--json", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

} // namespace evb
