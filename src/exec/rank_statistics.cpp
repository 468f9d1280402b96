#include "rank_statistics.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace evb {

nlohmann::json rank_statistics_body(const NodeStats& stats, double started_unix_s, const std::vector<Transport::RailBytes>& rails, CpuTime cpu) {
    nlohmann::json nics = nlohmann::json::array();
    for (const auto& r : rails) nics.push_back({{"nic", r.nic}, {"bytes", r.bytes}});
    return {{"stats", stats.to_json()},
            {"started_unix_s", started_unix_s},
            {"rails", nics},
            {"cpu", {{"user_s", cpu.user_s}, {"system_s", cpu.system_s}}}};
}

RankStatistics read_rank_statistics(const nlohmann::json& body, double rank0_started_unix_s) {
    try {
        RankStatistics r;
        r.stats = NodeStats::from_json(body.at("stats"));
        const double offset = body.at("started_unix_s").get<double>() - rank0_started_unix_s;
        for (auto& loss : r.stats.losses) loss.at += Picoseconds::from_seconds(offset);
        for (const auto& n : body.at("rails")) r.rails.push_back({n.at("nic").get<std::string>(), n.at("bytes").get<std::uint64_t>()});
        r.cpu = {body.at("cpu").at("user_s").get<double>(), body.at("cpu").at("system_s").get<double>()};
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument(fmt::format("{:.200}", e.what()));
    }
}

} // namespace evb
