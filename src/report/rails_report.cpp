#include "report/rails_report.hpp"

#include "core/quantity.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace evb {
namespace {

// Per rail (every rank has the same list, and a NIC may be named twice), the bytes of every rank.
std::vector<Transport::RailBytes> summed(const RunResult& r) {
    std::vector<Transport::RailBytes> sum;
    for (const auto& rank : r.rails)
        for (std::size_t i = 0; i < rank.nics.size(); ++i) {
            if (i == sum.size()) sum.push_back({rank.nics[i].nic, 0});
            sum[i].bytes += rank.nics[i].bytes;
        }
    return sum;
}

} // namespace

void print_rails(std::ostream& out, const RunResult& r) {
    const auto sum = summed(r);
    if (sum.empty()) return;
    std::uint64_t total = 0;
    for (const auto& s : sum) total += s.bytes;
    std::string parts;
    for (std::size_t i = 0; i < sum.size(); ++i) {
        const auto& s = sum[i];
        parts += fmt::format("{}rail {} {} {} ({:.1f}%)", parts.empty() ? "" : ", ", i, s.nic, format_size(s.bytes),
                             total ? 100.0 * static_cast<double>(s.bytes) / static_cast<double>(total) : 0.0);
    }
    fmt::print(out, "# rails: bytes written to other ranks per rail, all ranks: {}\n", parts);
}

nlohmann::json rails_json(const RunResult& r) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const auto& rank : r.rails) {
        nlohmann::json nics = nlohmann::json::array();
        for (const auto& n : rank.nics) nics.push_back({{"nic", n.nic}, {"bytes", n.bytes}});
        ranks.push_back({{"rank", rank.rank}, {"nics", nics}});
    }
    return ranks;
}

} // namespace evb
