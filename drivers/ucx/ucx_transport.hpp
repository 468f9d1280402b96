// The UCX transport: one UCP context and worker per rank, an endpoint per peer from the worker
// addresses exchanged through evbench's bootstrap, error handling mode PEER so that a broken
// peer becomes peer_lost naming it. Commands are active messages. UCX has no write with
// immediate: a fragment is ucp_put_nbx into the BU's slot, and its notice (imm, offset, length) is
// an active message sent once an endpoint flush covering the put has completed, so the notice
// never overtakes its data; one flush covers every put posted before it. Messages to a peer leave
// in posting order (a command waits behind an earlier write's notice). Remote keys are learnt on
// demand: a writer asks the target for its region table (bases, lengths, packed rkeys), unpacks
// each rkey once, and checks every write against the table (UCX's shared-memory transports would
// perform a put anywhere in the target). UCX_TLS and UCX_NET_DEVICES are respected, or set by
// --ucx-tls and --ucx-devices.
#pragma once
#include "drivers/transport/write_wire.hpp"
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "drivers/transport/region_directory.hpp"
#include "core/ring_queue.hpp"

#include <ucp/api/ucp.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

struct UcxOptions {
    std::string tls; // empty: $UCX_TLS, else UCX's choice
    std::string devices; // empty: $UCX_NET_DEVICES, else all
    std::string write = "am"; // how a fragment travels: "am" (an active message) or "put"
};

class UcxTransport final : public PeerTransport {
public:
    // Throws std::runtime_error naming what failed.
    // heartbeat: --heartbeat, 0 for none.
    UcxTransport(std::uint32_t rank, std::uint32_t size, const UcxOptions& options, Picoseconds heartbeat = {});
    ~UcxTransport() override;

    const char* name() const override { return "ucx"; }
    Capabilities capabilities() const override {
        return {.native_rma = put_, .max_message = std::size_t{1} << 30, .inline_size = command_bytes, .beats = true};
    }
    std::string describe() const override; // "UCX 1.13.1, UCX_TLS=..., UCX_NET_DEVICES=..."
    NicName nic() const override; // the first of UCX_NET_DEVICES ("mlx5_0:1"), when given
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    WaitPlan prepare_wait(std::vector<int>& fds) override;

    // Why this machine cannot run the transport with `options` (UCX cannot start a worker), or nothing.
    static std::optional<std::string> start_problem(const UcxOptions& options);

    static constexpr std::uint32_t messages_per_peer = 256; // queued or in flight, then no_resource
    static constexpr std::uint32_t writes_per_peer = 256;
    static constexpr std::uint32_t table_capacity = 256;

    // Active message ids.
    enum : unsigned { am_command = 1, am_notice, am_heartbeat, am_table_request, am_table_reply, am_write };
    // Every active message's header is a WriteHeader whose word is the sender's rank; all but a
    // write's (--ucx-write am) send only its first 8 B (rank and imm).
    static constexpr std::size_t short_header = 8;

    // Called by UCX from ucp_worker_progress.
    void on_message(unsigned id, std::uint32_t from, const void* data, std::size_t length);
    // A write's active message: its data lands in the region now (eager) or by rendezvous.
    ucs_status_t on_write(const WriteHeader& h, void* data, std::size_t length, bool rendezvous);
    struct Arrival {
        UcxTransport* owner;
        Completion completion; // write_arrived, once the data is in
    };
    void on_arrived(Arrival* a, ucs_status_t status);
    void on_peer_error(std::uint32_t peer, ucs_status_t status);
    struct SendSlot;
    void on_sent(SendSlot& slot, ucs_status_t status);
    void on_flushed(std::uint32_t peer, ucs_status_t status);

    // A send in flight: its header and body live here until UCX is done with them.
    struct SendSlot {
        UcxTransport* owner = nullptr;
        WriteHeader header;
        CommandBytes body{};
        std::vector<std::byte> large; // a region table reply
        std::uint32_t peer = 0;
        std::int64_t write = -1; // the write whose notice this is
        bool counted = false; // a command or notice, counted against messages_per_peer
    };

private:
    // A message to a peer, in posting order.
    struct Outgoing {
        enum class Kind : std::uint8_t { command, notice, write } kind = Kind::command;
        std::uint32_t write = 0; // notice or write: the write slot
        CommandBytes command{};
    };
    struct WriteSlot {
        std::uint32_t peer = 0;
        std::uint64_t cookie = 0;
        WriteNotice notice;
        bool flushed = false;
        const std::byte* data = nullptr; // --ucx-write am: the local bytes, and their region
        ucp_mem_h memh = nullptr;
        std::uint64_t key = 0; // the target's region
    };
    struct Peer {
        UcxTransport* owner = nullptr;
        std::uint32_t index = 0;
        ucp_ep_h ep = nullptr;
        RingQueue<Outgoing> queue{0};
        std::uint32_t messages_in_flight = 0;
        std::uint32_t writes = 0; // posted, write_done not yet given
        std::vector<std::uint32_t> unflushed, flushing; // writes by flush state
        bool flush_in_flight = false;
        std::vector<ucp_rkey_h> rkeys; // by region key - 1, from its table
        std::vector<std::byte> table_reply; // arrived, not yet unpacked
        bool table_requested = false;
    };
    PostStatus check_peer(std::uint32_t peer);
    PostStatus queued(std::uint32_t peer) const; // no_resource when the peer's share is taken
    SendSlot* take_slot(std::uint32_t peer);
    void release(SendSlot& slot);
    // Sends one active message; false when it failed (the peer is then lost).
    bool send(SendSlot& slot, unsigned id, const void* body, std::size_t length, std::size_t header_length = short_header,
              ucp_mem_h memh = nullptr);
    void send_queued(std::uint32_t peer);
    void start_flush(std::uint32_t peer);
    void answer_table_request(std::uint32_t peer);
    void take_table(std::uint32_t peer);
    void close_endpoints();

    UcxOptions options_;
    bool peer_failure_handled_ = true; // endpoints in error handling mode PEER
    bool put_ = false; // --ucx-write put
    ucp_context_h context_ = nullptr;
    ucp_worker_h worker_ = nullptr;
    int wait_fd_ = -1; // the worker's event fd (ucp_worker_get_efd), -1 without one
    std::vector<Peer> peers_;
    std::vector<ucp_mem_h> memhs_;
    std::vector<std::vector<std::byte>> packed_rkeys_; // per own region, packed once
    std::vector<MemoryRegion> regions_; // key: index + 1
    RegionDirectory directory_;
    std::vector<WriteSlot> write_slots_;
    std::vector<std::uint32_t> free_writes_;
    std::vector<SendSlot> send_slots_;
    std::vector<std::uint32_t> free_sends_;
    std::vector<std::uint32_t> peers_to_send_, table_requests_, tables_arrived_;
};

} // namespace evb
