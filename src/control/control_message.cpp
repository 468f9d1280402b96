#include "control/control_message.hpp"

#include "core/json_fields.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace evb {
namespace {

enum class Kind { count, rank, number, text, blob, blobs, object, array };

struct Field {
    const char* name;
    Kind kind;
};

struct Schema {
    ControlType type;
    const char* name;
    std::vector<Field> fields;
    std::uint32_t max_bytes; // the frame's payload (type byte and JSON), checked before it is read
};

// Bounds: a message of counts or flags some hundred bytes; a text field's 4096 and its JSON
// escapes; a rank's set-up part (its addresses, placements and where it runs) and its statistics
// (the latency histogram, a rail per NIC) well below theirs; the table rank 0 sends every rank
// holds every rank's part.
constexpr std::uint32_t small = 256, with_text = 6 * max_text_field + 256, rank_part = 1u << 20, statistics = 4u << 20;

const std::vector<Schema>& schemas() {
    static const std::vector<Schema> all = {
        {ControlType::hello, "hello", {{"value", Kind::blob}, {"fingerprint", Kind::text}}, rank_part},
        {ControlType::table, "table", {{"values", Kind::blobs}}, max_frame_bytes},
        {ControlType::ready, "ready", {}, small},
        {ControlType::go, "go", {}, small},
        {ControlType::progress,
         "progress",
         {{"bytes_in", Kind::count},
          {"bytes_out", Kind::count},
          {"events", Kind::count},
          {"in_flight", Kind::count},
          {"built_bytes", Kind::count},
          {"period", Kind::count}},
         small},
        {ControlType::done, "done", {{"losses", Kind::rank}}, small},
        {ControlType::beat, "beat", {}, small},
        {ControlType::lost_rank, "lost_rank", {{"rank", Kind::rank}, {"how", Kind::text}}, with_text},
        {ControlType::abort, "abort", {{"error", Kind::text}}, with_text},
        {ControlType::finish, "finish", {}, small},
        {ControlType::stats,
         "stats",
         {{"stats", Kind::object}, {"started_unix_s", Kind::number}, {"rails", Kind::array}, {"cpu", Kind::object}},
         statistics},
        {ControlType::bye, "bye", {}, small},
        {ControlType::end_now, "end_now", {{"signal", Kind::rank}}, small},
        {ControlType::steady, "steady", {}, small},
        {ControlType::link_lost, "link_lost", {{"error", Kind::text}}, with_text},
    };
    return all;
}

// JSON nested deeper than this is no message of ours (the deepest, a rank's statistics, nests
// some five levels): refused before the parser walks it.
constexpr std::size_t max_nesting = 32;

// Whether `json` nests arrays and objects deeper than max_nesting (brackets inside strings do not count).
bool nests_too_deep(std::string_view json) {
    std::size_t depth = 0;
    bool in_string = false, escaped = false;
    for (char c : json) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_nesting) return true;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return false;
}

const Schema* schema_of(ControlType type) {
    for (const auto& s : schemas())
        if (s.type == type) return &s;
    return nullptr;
}

const char* kind_text(Kind k) {
    switch (k) {
    case Kind::count: return "an unsigned integer";
    case Kind::rank: return "an unsigned 32-bit integer";
    case Kind::number: return "a number";
    case Kind::text: return "a string of at most 4096 bytes";
    case Kind::blob: return "a string";
    case Kind::blobs: return "an array of strings";
    case Kind::object: return "an object";
    case Kind::array: return "an array";
    }
    return "?";
}

bool fits(const nlohmann::json& v, Kind k) {
    switch (k) {
    case Kind::count: return json_is_whole(v);
    case Kind::rank: return json_is_whole(v, std::numeric_limits<std::uint32_t>::max());
    case Kind::number: return v.is_number();
    case Kind::text: return v.is_string() && v.get_ref<const std::string&>().size() <= max_text_field;
    case Kind::blob: return v.is_string();
    case Kind::blobs:
        if (!v.is_array()) return false;
        for (const auto& e : v)
            if (!e.is_string()) return false;
        return true;
    case Kind::object: return v.is_object();
    case Kind::array: return v.is_array();
    }
    return false;
}

// "" when the body is the schema's: every field present with its kind, no other.
std::string check(const Schema& s, const nlohmann::json& body) {
    if (!body.is_object()) return fmt::format("its {} body is not a JSON object", s.name);
    for (const auto& f : s.fields) {
        auto it = body.find(f.name);
        if (it == body.end()) return fmt::format("its {} message lacks the field '{}'", s.name, f.name);
        if (!fits(*it, f.kind)) return fmt::format("its {} message's field '{}' is not {}", s.name, f.name, kind_text(f.kind));
    }
    if (body.size() != s.fields.size())
        for (auto it = body.begin(); it != body.end(); ++it) {
            bool known = false;
            for (const auto& f : s.fields) known = known || it.key() == f.name;
            if (!known) return fmt::format("its {} message has a field '{:.40}' no such message has", s.name, it.key());
        }
    return "";
}

} // namespace

const char* to_string(ControlType type) {
    const Schema* s = schema_of(type);
    return s ? s->name : "unknown";
}

std::string encode_control_frame(const ControlMessage& message) {
    const Schema* s = schema_of(message.type);
    if (!s || message.type == ControlType::link_lost) throw std::invalid_argument("control: no such message type on the wire");
    if (std::string why = check(*s, message.body); !why.empty()) throw std::invalid_argument("control: " + why);
    const std::string text = message.body.dump();
    if (text.size() + 1 > s->max_bytes)
        throw std::length_error(
            fmt::format("control: a {} message of {} bytes exceeds its bound of {} bytes", s->name, text.size() + 1, s->max_bytes));
    const auto length = static_cast<std::uint32_t>(text.size() + 1);
    std::string frame(4, '\0');
    std::memcpy(frame.data(), &length, 4);
    frame.push_back(static_cast<char>(message.type));
    frame += text;
    return frame;
}

std::variant<ControlMessage, std::string> decode_control_payload(std::string_view payload) {
    if (payload.empty()) return std::string("an empty frame");
    const auto type = static_cast<ControlType>(static_cast<std::uint8_t>(payload[0]));
    const Schema* s = schema_of(type);
    if (!s || type == ControlType::link_lost)
        return fmt::format("a frame of unknown type {}", static_cast<unsigned>(static_cast<std::uint8_t>(payload[0])));
    if (payload.size() > s->max_bytes) return fmt::format("a {} message of {} bytes (at most {})", s->name, payload.size(), s->max_bytes);
    if (nests_too_deep(payload.substr(1))) return fmt::format("its {} message nests deeper than {} levels", s->name, max_nesting);
    ControlMessage m{type, {}};
    try {
        m.body = nlohmann::json::parse(payload.substr(1));
    } catch (const nlohmann::json::exception& e) {
        return fmt::format("its {} message {}", s->name, json_error_words(e));
    }
    if (std::string why = check(*s, m.body); !why.empty()) return why;
    return m;
}

ControlFrameRead take_control_frame(std::string& in) {
    if (in.size() < 4) return {};
    std::uint32_t len = 0;
    std::memcpy(&len, in.data(), 4);
    if (len == 0 || len > max_frame_bytes)
        return {std::nullopt,
                fmt::format("it announced a frame of {} bytes (the control plane's are 1 B to {} MiB)", len, max_frame_bytes >> 20)};
    if (in.size() < 5) return {};
    // The type's bound, before the frame is read: a rank cannot make rank 0 hold 16 MiB of a beat.
    if (const Schema* s = schema_of(static_cast<ControlType>(static_cast<std::uint8_t>(in[4]))); s && len > s->max_bytes)
        return {std::nullopt, fmt::format("it announced a {} message of {} bytes (at most {})", s->name, len, s->max_bytes)};
    if (in.size() < 4 + std::size_t{len}) return {};
    auto decoded = decode_control_payload(std::string_view(in).substr(4, len));
    in.erase(0, 4 + std::size_t{len});
    if (auto* why = std::get_if<std::string>(&decoded)) return {std::nullopt, "it sent " + *why};
    return {std::get<ControlMessage>(std::move(decoded)), ""};
}

} // namespace evb
