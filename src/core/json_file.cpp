#include "json_file.hpp"

#include "build_info.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace evb {

void write_json_file(const std::string& path, const nlohmann::json& doc) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write --json file '" + path + "': " + std::strerror(errno));
    nlohmann::json out = doc;
    if (out.is_object()) out["evbench"] = build_info_json();   // which binary wrote it
    f << out.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write --json file '" + path + "': " + std::strerror(errno));
}

} // namespace evb
