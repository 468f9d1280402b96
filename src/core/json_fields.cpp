#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace evb {

std::string json_error_words(const nlohmann::json::exception& e) {
    if (const auto* p = dynamic_cast<const nlohmann::json::parse_error*>(&e)) return fmt::format("is not JSON (byte {})", p->byte);
    if (e.id == 406) return "holds a number out of range"; // out_of_range.406: beyond a double, e.g. 1E3000
    if (e.id == 403) { // out_of_range.403: "key 'NAME' not found"; the key is the sender's, so it is cut and made printable
        const std::string what = e.what();
        const auto open = what.find('\''), close = what.rfind('\'');
        if (open != std::string::npos && close > open && close - open <= 41) {
            std::string key = what.substr(open + 1, close - open - 1);
            for (char& c : key)
                if (c < 0x20 || c > 0x7e) c = '?';
            return fmt::format("lacks the field '{}'", key);
        }
        return "lacks a field";
    }
    if (dynamic_cast<const nlohmann::json::type_error*>(&e)) return "has a value of the wrong kind";
    if (dynamic_cast<const nlohmann::json::out_of_range*>(&e)) return "has a value out of range";
    return "is not what was expected";
}

bool json_is_whole(const nlohmann::json& v, std::uint64_t max) {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= max;
    return v.is_number_integer() && v.get<std::int64_t>() >= 0 && static_cast<std::uint64_t>(v.get<std::int64_t>()) <= max;
}

const nlohmann::json& json_field(const nlohmann::json& j, std::string_view key) {
    if (!j.is_object()) throw std::invalid_argument(fmt::format("'{}' is not inside an object", key));
    auto it = j.find(key);
    if (it == j.end()) throw std::invalid_argument(fmt::format("the field '{}' is missing", key));
    return *it;
}

std::uint64_t whole_field(const nlohmann::json& j, std::string_view key, std::uint64_t max) {
    const auto& v = json_field(j, key);
    if (!json_is_whole(v, max)) throw std::invalid_argument(fmt::format("the field '{}' is not a whole number from 0 to {}", key, max));
    return v.get<std::uint64_t>();
}

std::int64_t integer_field(const nlohmann::json& j, std::string_view key) {
    const auto& v = json_field(j, key);
    if (v.is_number_integer() &&
        !(v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t{std::numeric_limits<std::int64_t>::max()}))
        return v.get<std::int64_t>();
    throw std::invalid_argument(fmt::format("the field '{}' is not a 64-bit integer", key));
}

double number_field(const nlohmann::json& j, std::string_view key) {
    const auto& v = json_field(j, key);
    if (!v.is_number()) throw std::invalid_argument(fmt::format("the field '{}' is not a number", key));
    return v.get<double>();
}

std::string text_field(const nlohmann::json& j, std::string_view key) {
    const auto& v = json_field(j, key);
    if (!v.is_string()) throw std::invalid_argument(fmt::format("the field '{}' is not a string", key));
    return v.get<std::string>();
}

} // namespace evb
