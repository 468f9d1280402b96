#include "json_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace evb {

void write_json_file(const std::string& path, const nlohmann::json& doc) {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write --json file '" + path + "': " + std::strerror(errno));
    f << doc.dump(2) << "\n";
    if (!f) throw std::runtime_error("cannot write --json file '" + path + "': " + std::strerror(errno));
}

} // namespace evb
