#include "control/run_key_source.hpp"

#include "core/config_error.hpp"
#include "core/input_file.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace evb {
namespace {
constexpr const char* key_variable = "EVBENCH_RUN_KEY";
// Set beside EVBENCH_RUN_KEY when the local launcher made the key, so the header says so.
constexpr const char* made_variable = "EVBENCH_RUN_KEY_BY_LAUNCHER";
} // namespace

RunKey choose_run_key(const World& world, const std::string& key_file) {
    if (!key_file.empty()) {
        const std::string text = read_input_file(key_file, key_file_limit, "--run-key-file");
        struct stat st {};
        if (stat(key_file.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
            throw ConfigError("--run-key-file '" + key_file + "' may be read or written by others than its owner: chmod 600 it");
        return RunKey::given(text, "--run-key-file " + key_file);
    }
    if (const char* k = environment_value(key_variable)) {
        RunKey key = RunKey::given(k, key_variable);
        if (const char* made = std::getenv(made_variable); made && std::string(made) == "1") return RunKey::made_by_launcher(key);
        return key;
    }
    return RunKey::from_job(world.launcher + " " + world.job_key);
}

bool run_key_given(const std::string& key_file) { return !key_file.empty() || environment_value(key_variable); }

void hand_run_key_to_children(const std::string& key_file) {
    if (run_key_given(key_file)) return; // every rank reads the file or the variable itself
    setenv(key_variable, RunKey::random().text().c_str(), 1);
    setenv(made_variable, "1", 1);
}

} // namespace evb
