#include "core/cpu_list.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace evb {

namespace {
int cpu_number(const std::string& list, std::string_view text) {
    int v = -1;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < 0 || v > 65535)
        throw std::invalid_argument("'" + list + "' is not a CPU list (numbers and ranges such as 0-3,8)");
    return v;
}
} // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
    std::vector<int> cpus;
    std::string_view rest = text;
    while (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
    if (rest.empty()) return cpus;
    while (true) {
        auto comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        auto dash = item.find('-');
        int first = cpu_number(text, item.substr(0, dash));
        int last = dash == std::string_view::npos ? first : cpu_number(text, item.substr(dash + 1));
        if (last < first) throw std::invalid_argument("'" + text + "': range " + std::string(item) + " runs backwards");
        for (int c = first; c <= last; ++c)
            if (std::ranges::find(cpus, c) == cpus.end()) cpus.push_back(c);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
    }
    return cpus;
}

std::string format_cpu_list(const std::vector<int>& unsorted) {
    auto cpus = unsorted;
    std::ranges::sort(cpus);
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        if (!out.empty()) out += ",";
        // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict, a false positive) on
        // "-" + std::to_string(...) here, and the quick start builds at -O3.
        out += std::to_string(cpus[i]);
        if (j > i) {
            out += '-';
            out += std::to_string(cpus[j]);
        }
        i = j + 1;
    }
    return out;
}

} // namespace evb
