#include "core/shipped_configs.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace evb {

namespace fs = std::filesystem;

std::vector<std::string> shipped_config_dirs() {
    std::vector<std::string> dirs;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "evbench" / "configs").string());
#ifdef EVB_SOURCE_CONFIGS_DIR
    dirs.emplace_back(EVB_SOURCE_CONFIGS_DIR);
#endif
    return dirs;
}

std::string resolve_config_path(const std::string& value) {
    std::error_code ec;
    if (value.empty() || value.find('/') != std::string::npos || fs::exists(value, ec)) return value;
    for (const auto& dir : shipped_config_dirs())
        for (const std::string& name : {value, value + ".toml"}) {
            const fs::path candidate = fs::path(dir) / name;
            if (fs::is_regular_file(candidate, ec)) return candidate.string();
        }
    return value;
}

std::string shipped_config_names() {
    for (const auto& dir : shipped_config_dirs()) {
        std::error_code ec;
        std::vector<std::string> names;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (it->path().extension() == ".toml") names.push_back(it->path().stem().string());
        if (names.empty()) continue;
        std::sort(names.begin(), names.end());
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        return list + " (in " + dir + ")";
    }
    return "none found";
}

} // namespace evb
