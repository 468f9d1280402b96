// The tcp driver's wire: each frame is a 32 B header, then its body: a 64 B command (a message)
// or a write's bytes, which land in the registered region the header names. The reader takes a
// peer's byte stream split anywhere and places no byte before its frame passed write_target.
#pragma once
#include "drivers/transport/transport.hpp"
#include "drivers/transport/write_target.hpp"
#include "drivers/transport/write_wire.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace evb {

// A frame's header is the drivers' WriteHeader, its word the frame's kind.
inline constexpr std::uint32_t tcp_frame_message = 1;
inline constexpr std::uint32_t tcp_frame_write = 2;
inline constexpr std::uint32_t tcp_frame_any = 0; // a reader that takes both kinds

class TcpFrameReader {
public:
    // A connection that carries frames of one kind refuses the other.
    explicit TcpFrameReader(std::uint32_t carries = tcp_frame_any) : carries_(carries) {}
    // Where frames go: the rank's regions (looked up for every piece of a body, so they may grow
    // between pieces) and its completions.
    class Sink {
    public:
        virtual ~Sink() = default;
        virtual WriteTarget target(std::uint64_t key, std::uint64_t offset, std::uint64_t length) = 0;
        virtual void arrived(const Completion& c) = 0; // message or write_arrived; `peer` is the caller's to set
    };

    // Takes all of `bytes`; every frame they complete goes to `sink`. Returns "" or why the
    // stream is refused ("a write of 64 B at offset ... outside ..."): nothing after that counts.
    std::string take(std::span<const std::byte> bytes, Sink& sink);
    // While a write's body is being received: the part of its region still to be filled, so the
    // caller can receive straight into it, then report with landed(). Empty otherwise.
    std::span<std::byte> body_room(Sink& sink);
    std::string landed(std::size_t bytes, Sink& sink);

private:
    std::string start_frame(Sink& sink);
    void finish_frame(Sink& sink);

    std::uint32_t carries_;
    std::byte header_bytes_[sizeof(WriteHeader)]{};
    std::size_t header_have_ = 0;
    bool in_body_ = false;
    WriteHeader current_{};
    std::uint64_t body_done_ = 0;
    CommandBytes command_{}; // a command being received
};

} // namespace evb
