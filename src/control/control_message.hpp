// The control plane's messages between rank 0 and the other ranks: a type byte from a fixed enum
// and a JSON object whose fields the type fixes. A frame is a 32-bit length (at most
// max_frame_bytes, and at most its type's own bound, checked before the frame is read), the type
// byte and the JSON text, nested at most 32 deep; anything else is malformed, and
// decode_control_payload says what was wrong in words fit for one line naming the peer.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace evb {

enum class ControlType : std::uint8_t {
    hello = 1, // rank -> 0, in each all-gather: {value, fingerprint}
    table, // 0 -> ranks, its answer: {values: one string per rank}
    ready, // rank -> 0 at the barrier: {}
    go, // 0 -> ranks: {}
    progress, // rank -> 0: {bytes_in, bytes_out, events, in_flight, built_bytes, period: the record's number}
    done, // rank -> 0, its units finished: {losses: the losses it had heard of}
    beat, // either way, with --heartbeat: {}
    lost_rank, // 0 -> ranks: {rank, how}
    abort, // either way: {error}
    finish, // 0 -> ranks: {}
    stats, // rank -> 0 at the end: {stats, started_unix_s, rails, cpu}
    bye, // 0 -> ranks, every statistic gathered: {}
    end_now, // either way: a rank was interrupted (rank -> 0), so the run ends as at its duration (0 -> ranks): {signal}
    steady, // 0 -> ranks: the built rate is known (--until steady), so the run ends as at its duration: {}
    // Never on the wire: what Bootstrap::poll reports of a link that closed or sent a malformed
    // frame: {error}.
    link_lost = 255,
};
const char* to_string(ControlType type);

struct ControlMessage {
    ControlType type;
    nlohmann::json body = nlohmann::json::object();
};

constexpr std::uint32_t max_frame_bytes = 16u << 20;
// The longest text field but the two that carry tables (hello's value, table's values).
constexpr std::size_t max_text_field = 4096;

// The whole frame (length, type, JSON). Throws std::length_error above the type's bound, and
// std::invalid_argument on a body that is not the type's schema: a sender's bug.
std::string encode_control_frame(const ControlMessage& message);
// The payload after the length: the message, or why it is malformed.
std::variant<ControlMessage, std::string> decode_control_payload(std::string_view payload);

// The first frame of the bytes a link received, taken off `in`: a message; nothing while the
// frame is not whole; or why the stream is malformed ("it sent ...": the link is done then).
struct ControlFrameRead {
    std::optional<ControlMessage> message;
    std::string malformed;
};
ControlFrameRead take_control_frame(std::string& in);

} // namespace evb
