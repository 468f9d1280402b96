#include "exec/rank_statistics.hpp"

#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>

#include <stdexcept>

namespace evb {

namespace {
constexpr double max_clock_offset_s = 86400, max_loss_time_s = 1e6;
}

nlohmann::json rank_statistics_body(const NodeStats& stats, double started_unix_s, const std::vector<Transport::RailBytes>& rails,
                                    CpuTime cpu) {
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
        r.stats = NodeStats::from_json(json_field(body, "stats"));
        // Clocks of one run's hosts differ by seconds, not days; a loss happened within the run.
        const double offset = number_field(body, "started_unix_s") - rank0_started_unix_s;
        if (!(std::fabs(offset) <= max_clock_offset_s))
            throw std::invalid_argument(fmt::format("it started {:.3g} s away from rank 0 (at most {} s)", offset, max_clock_offset_s));
        for (auto& loss : r.stats.losses) {
            if (loss.at < Picoseconds(0) || loss.at > Picoseconds::from_seconds(max_loss_time_s))
                throw std::invalid_argument(fmt::format("a loss at {} ps is outside any run", loss.at.count()));
            loss.at += Picoseconds::from_seconds(offset);
            if (loss.failed_at >= Picoseconds(0)) {
                if (loss.failed_at > Picoseconds::from_seconds(max_loss_time_s))
                    throw std::invalid_argument(fmt::format("a failure at {} ps is outside any run", loss.failed_at.count()));
                loss.failed_at += Picoseconds::from_seconds(offset);
            }
        }
        const auto& rails = json_field(body, "rails");
        if (!rails.is_array()) throw std::invalid_argument("the field 'rails' is not an array");
        for (const auto& n : rails) r.rails.push_back({text_field(n, "nic"), whole_field(n, "bytes")});
        const auto& cpu = json_field(body, "cpu");
        r.cpu = {number_field(cpu, "user_s"), number_field(cpu, "system_s")};
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw std::invalid_argument("the statistics " + json_error_words(e));
    }
}

} // namespace evb
