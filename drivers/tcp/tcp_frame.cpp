#include "drivers/tcp/tcp_frame.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace evb {

std::string TcpFrameReader::start_frame(Sink& sink) {
    std::memcpy(&current_, header_bytes_, sizeof current_);
    header_have_ = 0;
    body_done_ = 0;
    if (carries_ != tcp_frame_any && (current_.word == tcp_frame_message || current_.word == tcp_frame_write) && current_.word != carries_)
        return current_.word == tcp_frame_write ? "a write on its command connection" : "a command on its write connection";
    if (current_.word == tcp_frame_message) {
        if (current_.length != command_bytes)
            return fmt::format("a message frame of {} B (commands are {} B)", current_.length, command_bytes);
    } else if (current_.word == tcp_frame_write) {
        WriteTarget t = sink.target(current_.key, current_.offset, current_.length);
        if (!t.at) return t.why;
    } else {
        return fmt::format("a frame of unknown kind {}", current_.word);
    }
    in_body_ = true;
    return {};
}

void TcpFrameReader::finish_frame(Sink& sink) {
    in_body_ = false;
    if (current_.word == tcp_frame_write) return sink.arrived(write_arrived(0, current_.imm, current_.offset, current_.length));
    Completion c;
    c.kind = Completion::Kind::message;
    c.command = command_;
    sink.arrived(c);
}

std::string TcpFrameReader::take(std::span<const std::byte> bytes, Sink& sink) {
    while (!bytes.empty()) {
        if (!in_body_) {
            const std::size_t n = std::min(bytes.size(), sizeof header_bytes_ - header_have_);
            std::memcpy(header_bytes_ + header_have_, bytes.data(), n);
            header_have_ += n;
            bytes = bytes.subspan(n);
            if (header_have_ < sizeof header_bytes_) break;
            if (std::string why = start_frame(sink); !why.empty()) return why;
        }
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(current_.length - body_done_, bytes.size()));
        if (n > 0) {
            std::byte* at = command_.data();
            if (current_.word == tcp_frame_write) {
                WriteTarget t = sink.target(current_.key, current_.offset, current_.length);
                if (!t.at) return t.why;
                at = t.at;
            }
            std::memcpy(at + body_done_, bytes.data(), n);
            body_done_ += n;
            bytes = bytes.subspan(n);
        }
        if (body_done_ == current_.length) finish_frame(sink);
    }
    return {};
}

std::span<std::byte> TcpFrameReader::body_room(Sink& sink) {
    if (!in_body_ || current_.word != tcp_frame_write || body_done_ == current_.length) return {};
    WriteTarget t = sink.target(current_.key, current_.offset, current_.length);
    if (!t.at) return {}; // take() refuses the bytes with the reason
    return {t.at + body_done_, static_cast<std::size_t>(current_.length - body_done_)};
}

std::string TcpFrameReader::landed(std::size_t bytes, Sink& sink) {
    if (!in_body_ || current_.word != tcp_frame_write || bytes > current_.length - body_done_)
        return "more bytes than its write's body holds"; // a caller's error: body_room bounds every receive
    body_done_ += bytes;
    if (body_done_ == current_.length) finish_frame(sink);
    return {};
}

} // namespace evb
