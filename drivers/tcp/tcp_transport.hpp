// One process per rank over TCP: a full mesh of non-blocking sockets driven by epoll. A write
// is emulated by a frame header followed by the payload, which the target receives straight
// into the registered region named by the header. Writes to self are a memcpy.
// Every pair of ranks has two connections: one for writes, one for commands, so a 64 B command
// (a PULL request, a credit) never waits behind the fragment data queued towards the same peer,
// in this process or in the kernel's send buffer (a fragment of 1 MiB is 8 ms at 1 Gbit/s). The
// command connection has the interactive socket priority, which the host's priority queueing
// disciplines send first, and with --tcp-command-dscp a DSCP that switches can serve first.
// The sockets are driven in lanes: with --tcp-threads 1 (default) one lane, progressed by the
// caller's poll(); with K > 1, K I/O threads each own the sockets of peers p mod K (their send
// queues, receive state and epoll set), so one rank spends several cores on the kernel's copies.
// Posts reach a lane through its inbox, completions come back through its outbox.
#pragma once
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "core/ring_queue.hpp"
#include "core/run_key.hpp"
#include "drivers/tcp/tcp_frame.hpp"

#include <sys/uio.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace evb {

class TcpTransport final : public PeerTransport {
public:
    struct Options {
        // > 0 (tests, --tcp-read-chunk): at most that many bytes per recv() and one recv() per
        // peer per poll, so frames split at every boundary and peers' frames interleave.
        std::size_t read_chunk = 0;
        std::uint32_t threads = 1; // --tcp-threads
        std::uint32_t command_dscp = 0; // --tcp-command-dscp: the commands' DSCP, 0 unmarked
    };
    // Every connection to a peer proves `key` (keyed_handshake.hpp); `key` outlives the transport.
    TcpTransport(std::uint32_t rank, std::uint32_t size, const std::string& listen_host, const RunKey& key, const Options& options);
    ~TcpTransport() override;
    const char* name() const override { return "tcp"; }
    Capabilities capabilities() const override { return {false, std::size_t{1} << 30, 64}; }
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    WaitPlan prepare_wait(std::vector<int>& fds) override;
    void fence(std::uint32_t peer) override;

private:
    struct SendOp {
        WriteHeader header{};
        CommandBytes command{};
        const std::byte* payload = nullptr; // write: registered memory; message: the command
        std::size_t sent = 0; // bytes of header + body already on the wire
        std::uint64_t cookie = 0;
    };
    // A peer's two connections, by what they carry (each carries frames of that kind only).
    enum Channel : std::uint32_t { writes = 0, commands = 1 };
    static constexpr std::uint32_t channels = 2;
    struct Connection {
        explicit Connection(std::uint32_t frame_kind) : reader(frame_kind) {}
        int fd = -1;
        bool want_out = false; // EPOLLOUT armed
        RingQueue<SendOp> sendq{256};
        // Receive state: what recv() fills when no write body is open (headers, commands, the
        // starts of bodies); an open body is received straight into its region.
        std::vector<std::byte> staging;
        TcpFrameReader reader;
    };
    struct Peer {
        std::array<Connection, channels> connections{Connection(tcp_frame_write), Connection(tcp_frame_message)};
        std::atomic<bool> fenced{false}; // set by the caller's thread: its lane reads nothing more from it
        std::atomic<std::size_t> queued{0}; // frames posted and not yet sent (the poster's no_resource)
        bool dirty = false; // queued sends not yet flushed
    };
    struct Posted {
        std::uint32_t peer;
        SendOp op;
    };
    // A set of peers driven together: by the caller (one lane) or by its own thread.
    struct Lane {
        int epoll_fd = -1;
        std::vector<std::uint32_t> dirty;
        std::array<iovec, 64> iov{};
        // Threaded lanes only:
        int wake_fd = -1; // eventfd in the lane's epoll set: a post or stop
        std::mutex mutex; // guards inbox and outbox
        std::vector<Posted> inbox; // posts from the caller's thread
        std::vector<Completion> outbox; // completions for the caller's thread
        std::vector<Completion> pending; // this pass's completions, published at its end
        std::vector<Posted> draining; // the inbox taken in a pass (kept: its capacity is reused)
        std::thread thread;
    };

    PostStatus enqueue(std::uint32_t peer, const SendOp& op);
    void queue_in_lane(std::uint32_t peer, const SendOp& op);
    void progress(Lane& lane, int timeout_ms);
    void run_lane(Lane& lane);
    void collect_outboxes();
    Lane& lane_of(std::uint32_t peer) { return *lanes_[peer % lanes_.size()]; }
    bool threaded() const { return !threads_.empty(); }
    void flush(std::uint32_t peer);
    void flush(std::uint32_t peer, Channel channel);
    void receive(std::uint32_t peer, Channel channel);
    class Landing; // a peer's frames into this rank's regions and completions
    // PeerTransport::lose queues the peer_lost completion in ready_, which only the caller's
    // thread may touch: the peer's lane marks the loss in the same record (read by the posting
    // thread) and hands the completion on through complete(), which the I/O threads share.
    void lose_in_lane(std::uint32_t peer, const std::string& why);
    std::size_t read_size(std::size_t room) const;
    void update_events(std::uint32_t peer, Channel channel);
    void complete(const Completion& c);

    std::string host_;
    const RunKey& key_;
    int listen_fd_ = -1;
    std::vector<Peer> peers_;
    std::mutex regions_mutex_; // registration (caller) against frames landing (lanes)
    std::vector<MemoryRegion> regions_; // key = index + 1
    std::vector<std::unique_ptr<Lane>> lanes_;
    std::vector<Lane*> threads_; // the lanes with a thread of their own (K > 1)
    std::atomic<bool> stop_{false};
    int ready_fd_ = -1; // eventfd: a lane published completions (prepare_wait offers it)
    std::vector<Completion> collected_; // an outbox taken by poll() (swapped, so no allocation per poll)
    std::size_t read_chunk_ = 0;
    std::uint32_t command_dscp_ = 0;
};

} // namespace evb
