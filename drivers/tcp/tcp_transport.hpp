// One process per rank over TCP: a full mesh of non-blocking sockets driven by epoll. A write
// is emulated by a frame header followed by the payload, which the target receives straight
// into the registered region named by the header. Writes to self are a memcpy.
#pragma once
#include "ring_queue.hpp"
#include "transport.hpp"

#include <sys/uio.h>

#include <array>
#include <string>
#include <vector>

namespace evb {

class TcpTransport final : public Transport {
public:
    // read_chunk > 0 (tests, --tcp-read-chunk): at most that many bytes per recv() and one recv()
    // per peer per poll, so frames split at every boundary and peers' frames interleave.
    TcpTransport(std::uint32_t rank, std::uint32_t size, const std::string& listen_host, std::size_t read_chunk = 0);
    ~TcpTransport() override;
    const char* name() const override { return "tcp"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    Capabilities capabilities() const override { return {false, std::size_t{1} << 30, 64}; }
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset,
                          std::uint64_t remote_key, std::uint64_t remote_offset, std::size_t length, std::uint32_t imm,
                          std::uint64_t cookie) override;
    std::size_t poll(std::span<Completion> out) override;
    void wait(Picoseconds max) override;
    std::string last_error() const override { return last_error_; }

private:
    struct FrameHeader {
        std::uint32_t kind;   // 1 message, 2 write
        std::uint32_t imm;
        std::uint64_t key;
        std::uint64_t offset;
        std::uint64_t length;
    };
    struct SendOp {
        FrameHeader header{};
        CommandBytes command{};
        const std::byte* payload = nullptr;   // write: registered memory; message: the command
        std::size_t sent = 0;                 // bytes of header + body already on the wire
        std::uint64_t cookie = 0;
    };
    struct Peer {
        int fd = -1;
        bool alive = false;
        bool want_out = false;      // EPOLLOUT armed
        bool dirty = false;         // queued sends not yet flushed
        RingQueue<SendOp> sendq{256};
        // Receive state: staging buffer for headers and small bodies; payloads go to the region.
        std::vector<std::byte> staging;
        std::size_t staged = 0, parsed = 0;
        bool in_body = false;
        FrameHeader current{};
        std::size_t body_done = 0;
        CommandBytes command{};     // a command being received: its own, a peer's bytes never mix
        std::string error;
    };

    PostStatus enqueue(std::uint32_t peer, const SendOp& op);
    void progress(int timeout_ms);
    void flush(std::uint32_t peer);
    void receive(std::uint32_t peer);
    bool consume_staged(Peer& p, std::uint32_t peer);
    std::byte* body_target(Peer& p, std::uint32_t peer);
    void lose(std::uint32_t peer, const std::string& why);
    std::size_t read_size(std::size_t room) const;
    void update_events(std::uint32_t peer);
    void complete(const Completion& c) { done_.push(c); }

    std::uint32_t rank_, size_;
    std::string host_;
    int listen_fd_ = -1;
    int epoll_fd_ = -1;
    std::vector<Peer> peers_;
    std::vector<MemoryRegion> regions_;   // key = index + 1
    std::vector<std::uint32_t> dirty_;
    RingQueue<Completion> done_{4096};
    std::array<iovec, 64> iov_{};
    std::size_t read_chunk_ = 0;
    std::string last_error_;
    PostStatus refuse(std::uint32_t peer, const char* what);
};

} // namespace evb
