// The control plane's frames as a link receives them (control_message.hpp), split anywhere:
// read whole and in pieces they must give the same messages and the same refusal; a message
// that decodes must encode again to the same message; a stats message is read as rank 0's
// gather reads it (rank_statistics.hpp), where only std::invalid_argument may refuse it.
// Input: a split seed (u8), then the byte stream.
#include "control/control_message.hpp"
#include "fuzz_input.hpp"
#include "exec/rank_statistics.hpp"
#include "recorded_traffic.hpp"
#include "seed_dir.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

using namespace evb;

namespace {

struct Read {
    std::vector<ControlMessage> messages;
    std::string malformed;
};

// Feeds the stream in pieces of 1 B to 2^(seed % 13) B (seed 255: all at once).
Read read_stream(std::string_view stream, std::uint8_t seed) {
    Read r;
    std::string in;
    std::uint32_t state = seed * 2654435761u + 1;
    while (r.malformed.empty()) {
        if (!stream.empty()) {
            state = state * 1103515245u + 12345u;
            const std::size_t n =
                seed == 255 ? stream.size() : std::min<std::size_t>(1 + (state >> 8) % (1u << (seed % 13)), stream.size());
            in.append(stream.substr(0, n));
            stream.remove_prefix(n);
        }
        for (;;) {
            ControlFrameRead f = take_control_frame(in);
            if (!f.malformed.empty()) r.malformed = f.malformed;
            if (!f.message) break;
            r.messages.push_back(std::move(*f.message));
        }
        if (stream.empty()) break;
    }
    return r;
}

void write_seeds() {
    Config c = fuzz::small_event_build(Protocol::pull, Scheduling::barrel_shift);
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    logger("evb").set_level(spdlog::level::off);
    RunOutcome o = run_in_process(c, LocalDriver().make_all(Layout::from_config(c).ranks()), console);
    const NodeStats stats = o.result ? o.result->nodes.at(1) : NodeStats{};
    const std::vector<ControlMessage> conversation = {
        {ControlType::hello, {{"value", "127.0.0.1:40213"}, {"fingerprint", "e3b0c44298fc1c14"}}},
        {ControlType::table, {{"values", {"127.0.0.1:40211", "127.0.0.1:40213", "127.0.0.1:40217"}}}},
        {ControlType::ready, nlohmann::json::object()},
        {ControlType::go, nlohmann::json::object()},
        {ControlType::progress,
         {{"bytes_in", 1u << 20}, {"bytes_out", 1u << 20}, {"events", 24}, {"in_flight", 2}, {"built_bytes", 3u << 20}, {"period", 7}}},
        {ControlType::beat, nlohmann::json::object()},
        {ControlType::lost_rank, {{"rank", 2}, {"how", "missed its heartbeat for 300 ms"}}},
        {ControlType::done, {{"losses", 1}}},
        {ControlType::finish, nlohmann::json::object()},
        {ControlType::stats, rank_statistics_body(stats, 1.8e9, {{"mlx5_0", 1u << 20}}, {0.25, 0.5})},
        {ControlType::abort, {{"error", "rank 1: tcp: peer closed the connection"}}},
        {ControlType::bye, nlohmann::json::object()},
        {ControlType::steady, nlohmann::json::object()},
    };
    std::string all;
    for (std::size_t i = 0; i < conversation.size(); ++i) {
        const std::string frame = encode_control_frame(conversation[i]);
        fuzz::write_seed(std::string(to_string(conversation[i].type)), std::string(1, static_cast<char>(i * 29)) + frame);
        all += frame;
    }
    fuzz::write_seed("conversation", std::string(1, '\x07') + all);
    std::printf("fuzz_control_frames: %zu seeds\n", conversation.size() + 1);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::write_seeds_when_asked(write_seeds);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
    const Read whole = read_stream(stream, 255), pieces = read_stream(stream, data[0]);
    if (whole.malformed != pieces.malformed || whole.messages.size() != pieces.messages.size()) {
        std::fprintf(stderr, "fuzz_control_frames: the stream read whole and in pieces disagree\n");
        std::abort();
    }
    for (const ControlMessage& m : whole.messages) {
        std::string again = encode_control_frame(m); // a decoded message always fits its schema: no throw
        auto back = decode_control_payload(std::string_view(again).substr(4));
        const auto* same = std::get_if<ControlMessage>(&back);
        if (!same || same->type != m.type || same->body != m.body) std::abort();
        if (m.type == ControlType::stats) {
            try {
                (void)read_rank_statistics(m.body, 1.8e9);
            } catch (const std::invalid_argument&) {}
        }
    }
    return 0;
}
