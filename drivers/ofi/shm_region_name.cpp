#include "drivers/ofi/shm_region_name.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <random>
#include <string_view>
#include <system_error>

namespace evb {
namespace {

constexpr std::string_view prefix = "evbench-ofi-";

// The inode of this process's pid namespace ("pid:[4026531836]" -> "4026531836"), or "0".
std::string pid_namespace() {
    std::error_code ec;
    const std::string link = std::filesystem::read_symlink("/proc/self/ns/pid", ec).string();
    const auto open = link.find('['), close = link.find(']');
    if (ec || open == std::string::npos || close == std::string::npos || close <= open + 1) return "0";
    return link.substr(open + 1, close - open - 1);
}

} // namespace

std::string unique_shm_region_name() {
    std::random_device random;
    const unsigned long long nonce = (static_cast<unsigned long long>(random()) << 32) ^ random();
    char tail[64];
    std::snprintf(tail, sizeof tail, "-%ld-%016llx", static_cast<long>(getpid()), nonce);
    return std::string(prefix) + pid_namespace() + tail;
}

std::size_t remove_shm_regions_of_dead_processes(const std::filesystem::path& dir) {
    const std::string own = std::string(prefix) + pid_namespace() + "-";
    std::size_t removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.starts_with(own)) continue;
        const std::string_view rest = std::string_view(name).substr(own.size());
        long pid = 0;
        const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
        if (error != std::errc{} || pid <= 0 || end == rest.data() + rest.size() || *end != '-') continue;
        std::error_code gone;
        if (std::filesystem::exists("/proc/" + std::to_string(pid), gone) || gone) continue;
        if (std::filesystem::remove(entry.path(), gone)) ++removed;
    }
    return removed;
}

} // namespace evb
