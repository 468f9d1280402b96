#include "report/result_row.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace evb {
namespace {

// A JSON value as a cell: text as it is, a whole number as one, a real rounded to 4 decimals (as
// tools/scan_table.py rounds the rates), null or missing as an empty cell.
std::string cell(const nlohmann::json& v, bool rounded = false) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer()) return v.dump();
    if (v.is_number()) return fmt::format("{}", rounded ? std::round(v.get<double>() * 1e4) / 1e4 : v.get<double>());
    return "";
}

const nlohmann::json& at(const nlohmann::json& j, const char* key) {
    static const nlohmann::json none;
    if (!j.is_object()) return none;
    auto it = j.find(key);
    return it == j.end() ? none : *it;
}

} // namespace

ResultRow result_row(const nlohmann::json& doc, const std::string& commit) {
    const auto& config = at(doc, "config");
    const auto& results = at(doc, "results");
    const auto& system = at(results, "system");
    const auto& network = at(results, "network");
    const auto& fabric = at(network, "fabric_rx_gbps"); // simulated: the per-packet fabric figure
    std::vector<double> per_node;
    if (fabric.is_object()) {
        for (const auto& v : at(fabric, "per_node")) per_node.push_back(v.get<double>());
    } else {
        for (const auto& n : at(results, "nodes")) per_node.push_back(at(n, "in_gbps").is_number() ? at(n, "in_gbps").get<double>() : 0.0);
    }
    const nlohmann::json& avg = fabric.is_object() ? at(fabric, "avg") : at(system, "per_node_in_gbps");
    const auto& steady = at(results, "steady"); // --until steady: its verdict, and its rate when it has batches
    const bool steady_rate = at(steady, "batches").is_number() && at(steady, "batches").get<double>() > 0;
    // Under --until steady the verdict says it (its table counts from --warmup, start-up and all).
    const bool start_up = steady.is_object() ? at(steady, "reached") != true
                                             : at(network, "start_up_in_window") == true ||
            (at(system, "idle_builders").is_number() && at(system, "idle_builders").get<double>() > 0) ||
            (at(system, "first_events_in_window").is_number() && at(system, "first_events_in_window").get<double>() > 0);
    const auto& latency = at(system, "latency_us");
    return {
        {"transport", cell(at(config, "transport"))},
        {"protocol", cell(at(results, "baseline").is_null() ? at(config, "protocol") : at(results, "baseline"))},
        {"scheduling", cell(at(config, "scheduling"))},
        {"nodes", cell(at(config, "nodes"))},
        {"ppn", cell(at(config, "ppn"))},
        {"credits", cell(at(config, "credits"))},
        {"parallel", cell(at(config, "parallel"))},
        {"fragment_size", cell(at(config, "fragment_size"))},
        {"exit_code", cell(at(results, "exit_code").is_null() ? nlohmann::json(0) : at(results, "exit_code"))},
        {"events_built", cell(at(system, "events_built").is_null() ? at(results, "iterations") : at(system, "events_built"))},
        {"errors", cell(at(system, "errors").is_null() ? nlohmann::json(0) : at(system, "errors"))},
        {"start_up", start_up ? "yes" : "no"},
        {"idle_builders", cell(at(system, "idle_builders"))},
        {"steady", steady.is_object() ? (at(steady, "reached") == true ? "yes" : "no") : ""},
        {"steady_gbps", steady_rate ? cell(at(steady, "per_node_built_gbps"), true) : ""},
        {"half_width_gbps", steady_rate ? cell(at(steady, "half_width_gbps"), true) : ""},
        {"per_node_gbps", cell(avg, true)},
        {"min_node_gbps", per_node.empty() ? "" : cell(*std::min_element(per_node.begin(), per_node.end()), true)},
        {"max_node_gbps", per_node.empty() ? "" : cell(*std::max_element(per_node.begin(), per_node.end()), true)},
        {"built_gbps", cell(at(system, "per_node_built_gbps"), true)},
        {"event_rate_hz", cell(at(system, "event_rate_hz"), true)},
        {"latency_avg_us", cell(at(latency, "avg"), true)},
        {"latency_p99_us", cell(at(latency, "p99"), true)},
        {"window_s", cell(at(results, "window_s").is_null() ? at(results, "seconds") : at(results, "window_s"))},
        {"duration_s", cell(at(config, "duration_s"))},
        {"warmup_s", cell(at(config, "warmup_s").is_null() ? nlohmann::json(0) : at(config, "warmup_s"))},
        {"seed", cell(at(config, "seed"))},
        {"commit", commit},
        {"point", ""}, // a scan point's arguments: scan.py's, not a single run's
    };
}

std::string csv_text(const ResultRow& row) {
    auto quoted = [](const std::string& v) {
        if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
        std::string q = "\"";
        for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    std::string header, values;
    for (std::size_t i = 0; i < row.size(); ++i) {
        header += (i ? "," : "") + row[i].first;
        values += (i ? "," : "") + quoted(row[i].second);
    }
    return header + "\n" + values + "\n";
}

std::string key_value_line(const ResultRow& row) {
    std::string line = "evbench:";
    for (const auto& [name, value] : row) {
        if (value.empty()) continue;
        const bool plain = value.find_first_of(" \"\\=\t\n") == std::string::npos;
        std::string shown = value;
        if (!plain) {
            shown = "\"";
            for (char c : value) shown += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c == '\n' ? ' ' : c);
            shown += "\"";
        }
        line += " " + name + "=" + shown;
    }
    return line + "\n";
}

} // namespace evb
