#include "core/log.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include <map>
#include <memory>
#include <mutex>

namespace evb {
namespace {
std::mutex mutex;
std::map<std::string, std::shared_ptr<spdlog::logger>> loggers;
spdlog::level::level_enum level = spdlog::level::warn;
std::string pattern = "evbench: %n: %l: %v";
} // namespace

spdlog::logger& logger(const std::string& name) {
    std::lock_guard lock(mutex);
    auto& l = loggers[name];
    if (!l) {
        l = std::make_shared<spdlog::logger>(name, std::make_shared<spdlog::sinks::stderr_sink_mt>());
        l->set_level(level);
        l->set_pattern(pattern);
    }
    return *l;
}

bool set_log_level(const std::string& name) {
    auto parsed = spdlog::level::from_str(name);
    if (parsed == spdlog::level::off && name != "off") return false;
    std::lock_guard lock(mutex);
    level = parsed;
    for (auto& [n, l] : loggers) l->set_level(level);
    return true;
}

void set_log_rank(int rank) {
    std::lock_guard lock(mutex);
    pattern = "evbench[rank " + std::to_string(rank) + "]: %n: %l: %v";
    for (auto& [n, l] : loggers) l->set_pattern(pattern);
}

} // namespace evb
