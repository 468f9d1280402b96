// CLI11 helpers shared by evbench's commands: enums by name and values with units, both
// reporting bad input as a ConfigError that names the flag.
#pragma once
#include "config.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>

namespace evb {

template <typename Enum>
inline CLI::Option* add_enum(CLI::App& app, const std::string& flag, Enum& target, const std::map<std::string, Enum>& names,
                      const std::string& help) {
    std::string choices, current;
    for (const auto& [n, v] : names) {
        choices += (choices.empty() ? "" : "|") + n;
        if (v == target) current = n;
    }
    return app
        .add_option_function<std::string>(
            flag,
            [flag, &target, names, choices](const std::string& value) {
                auto it = names.find(value);
                if (it == names.end()) throw ConfigError(flag + ": unknown value '" + value + "' (choose " + choices + ")");
                target = it->second;
            },
            help + " (" + choices + ")")
        ->default_str(current);
}

// A value with a unit, converted by `parse`; errors name the flag.
template <typename T>
inline CLI::Option* add_quantity(CLI::App& app, const std::string& flag, T& target, std::function<T(const std::string&)> parse,
                          const std::string& help, const std::string& current) {
    return app
        .add_option_function<std::string>(
            flag,
            [flag, &target, parse](const std::string& value) {
                try {
                    target = parse(value);
                } catch (const std::invalid_argument& e) {
                    throw ConfigError(flag + ": " + e.what());
                }
            },
            help)
        ->default_str(current);
}

} // namespace evb
