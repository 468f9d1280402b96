#include "core/rank_origin.hpp"

#include "core/json_fields.hpp"
#include "core/machine_info.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <array>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace evb {
namespace {

constexpr std::size_t max_text = 1024; // a host name, kernel line, CPU model, NIC field
constexpr std::size_t max_variables = 1024;
constexpr std::size_t max_variable_name = 256, max_variable_value = 4096;

bool recorded_variable(std::string_view name) {
    static constexpr std::array<std::string_view, 7> prefixes{"FI_", "UCX_", "OMPI_", "PSM2_", "SLURM_", "PMIX_", "EVBENCH_"};
    bool steering = false;
    for (auto p : prefixes) steering = steering || name.starts_with(p);
    if (!steering) return false;
    for (std::string_view secret : {"KEY", "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL"})
        if (name.find(secret) != std::string_view::npos) return false;
    return true;
}

std::string bounded_text(const nlohmann::json& j, std::string_view key, std::size_t limit = max_text) {
    std::string t = text_field(j, key);
    if (t.size() > limit) throw std::invalid_argument(fmt::format("the field '{}' is longer than {} bytes", key, limit));
    return t;
}

} // namespace

nlohmann::json RankOrigin::to_json() const {
    return {{"rank", rank ? nlohmann::json(*rank) : nlohmann::json(nullptr)},
            {"host", host},
            {"pid", pid},
            {"kernel", kernel},
            {"cpu_model", cpu_model},
            {"nic", nic},
            {"nic_driver", nic_driver},
            {"nic_firmware", nic_firmware},
            {"address", address},
            {"environment", environment}};
}

RankOrigin RankOrigin::from_json(const nlohmann::json& j) {
    RankOrigin o;
    if (!json_field(j, "rank").is_null()) o.rank = whole_field_as<std::uint32_t>(j, "rank");
    o.host = bounded_text(j, "host");
    o.pid = integer_field(j, "pid");
    o.kernel = bounded_text(j, "kernel");
    o.cpu_model = bounded_text(j, "cpu_model");
    o.nic = bounded_text(j, "nic");
    o.nic_driver = bounded_text(j, "nic_driver");
    o.nic_firmware = bounded_text(j, "nic_firmware");
    o.address = bounded_text(j, "address", 64);
    const auto& env = json_field(j, "environment");
    if (!env.is_object()) throw std::invalid_argument("the field 'environment' is not an object");
    if (env.size() > max_variables)
        throw std::invalid_argument(fmt::format("the field 'environment' has more than {} variables", max_variables));
    for (const auto& [name, value] : env.items()) {
        if (name.size() > max_variable_name || !recorded_variable(name))
            throw std::invalid_argument("the field 'environment' holds a variable evbench does not record");
        o.environment[name] = bounded_text(env, name, max_variable_value);
    }
    return o;
}

RankOrigin this_process_origin(std::optional<std::uint32_t> rank, const NicName& nic) {
    RankOrigin o;
    o.rank = rank;
    std::array<char, 256> host{};
    if (gethostname(host.data(), host.size() - 1) == 0) o.host = host.data();
    o.pid = getpid();
    o.kernel = kernel_text().substr(0, max_text);
    o.cpu_model = cpu_model().substr(0, max_text);
    o.nic = nic.text().substr(0, max_text);
    const NicIdentity id = nic_identity(nic);
    o.nic_driver = id.driver.substr(0, max_text);
    o.nic_firmware = id.firmware.substr(0, max_text);
    if (!nic.interface.empty()) o.address = ipv4_of_interface(nic.interface);
    for (char** e = environ; e && *e && o.environment.size() < max_variables; ++e) {
        const std::string_view entry(*e);
        const auto eq = entry.find('=');
        if (eq == std::string_view::npos || eq > max_variable_name) continue;
        const std::string_view name = entry.substr(0, eq);
        if (recorded_variable(name)) o.environment[std::string(name)] = std::string(entry.substr(eq + 1, max_variable_value));
    }
    return o;
}

nlohmann::json origins_json(const std::vector<RankOrigin>& ranks) {
    nlohmann::json hosts = nlohmann::json::object(), list = nlohmann::json::array(), differs = nlohmann::json::object();
    for (const auto& o : ranks) {
        if (!hosts.contains(o.host)) hosts[o.host] = {{"kernel", o.kernel}, {"cpu_model", o.cpu_model}};
        nlohmann::json rank = o.to_json(); // less what is per host, and the environment by difference
        for (const char* key : {"kernel", "cpu_model", "environment"}) rank.erase(key);
        list.push_back(std::move(rank));
    }
    const std::map<std::string, std::string> none;
    const auto& first = ranks.empty() ? none : ranks.front().environment;
    for (std::size_t i = 1; i < ranks.size(); ++i) {
        nlohmann::json d = nlohmann::json::object();
        for (const auto& [name, value] : ranks[i].environment)
            if (auto it = first.find(name); it == first.end() || it->second != value) d[name] = value;
        for (const auto& [name, value] : first)
            if (!ranks[i].environment.contains(name)) d[name] = nullptr;
        if (!d.empty()) differs[std::to_string(ranks[i].rank.value_or(0))] = d;
    }
    return {{"hosts", hosts}, {"ranks", list}, {"environment", first}, {"environment_differs", differs}};
}

} // namespace evb
