// Typed reads of JSON that came from outside (a peer's statistics, a results file read back):
// a field of the wrong kind or out of range is std::invalid_argument naming the field, never a
// narrowing conversion (nlohmann's get<> casts a double such as 1e300 to an integer unchecked).
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace evb {

// What was wrong with JSON from outside, in evbench's words ("is not JSON (byte 12)", "holds a
// number out of range", "lacks the field 'addresses'", "has a value of the wrong kind"): never
// the library's own text ("[json.exception.out_of_range.406] number overflow parsing '1E3000'").
std::string json_error_words(const nlohmann::json::exception& e);

// A JSON integer from 0 to `max` (nlohmann keeps one built from a C++ int as signed).
bool json_is_whole(const nlohmann::json& v, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// j[key], which must be there and be what the name says; else std::invalid_argument.
const nlohmann::json& json_field(const nlohmann::json& j, std::string_view key);
std::uint64_t whole_field(const nlohmann::json& j, std::string_view key, std::uint64_t max = std::numeric_limits<std::uint64_t>::max());
std::int64_t integer_field(const nlohmann::json& j, std::string_view key);
double number_field(const nlohmann::json& j, std::string_view key);
std::string text_field(const nlohmann::json& j, std::string_view key);

template <typename Unsigned>
Unsigned whole_field_as(const nlohmann::json& j, std::string_view key) {
    return static_cast<Unsigned>(whole_field(j, key, std::numeric_limits<Unsigned>::max()));
}

} // namespace evb
