// The verbs transport (rdma-core): connections through rdma_cm with IP addresses (InfiniBand,
// RoCE, soft-RoCE alike), one reliable-connected QP per peer, one memory region per pool
// registered nearly zero-based (ibv_reg_mr_iova at the base's page offset: remote offsets are
// addresses), fragments as an RDMA
// WRITE straight into the BU's slot chained with an inline SEND WITH IMMEDIATE that tells the
// target the write's imm, offset and length (an RC QP delivers it after the data), commands as
// inline SENDs into pre-posted per-QP receive rings, one completion queue polled by the reactor,
// and the send queue depth respected (a full queue answers no_resource; the node retries in
// order). Only every signal_every-th work request and each write's notice are signalled; receive
// buffers are re-posted in one chain per peer and poll; the connection manager's channel is read
// at most once a millisecond (a peer that goes away), not on every poll. A connection request
// carries the requester's one-way proof of the run key in its private data (keyed_handshake.hpp);
// one without it is rejected with one line naming its address.
#pragma once
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "core/ring_queue.hpp"
#include "core/run_key.hpp"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

struct VerbsOptions {
    std::string device; // empty: whichever device owns the address
    std::uint32_t port = 1;
    std::string listen_host; // empty or 127.0.0.1: the first IPv4 address in the device's GID table
};

class VerbsTransport final : public PeerTransport {
public:
    // Throws std::runtime_error ("no RDMA device: load rdma_rxe or use another transport", ...).
    // Every connection request proves `key`, which outlives the transport.
    VerbsTransport(std::uint32_t rank, std::uint32_t size, VerbsOptions options, const RunKey& key);
    ~VerbsTransport() override;

    const char* name() const override { return "verbs"; }
    Capabilities capabilities() const override { return {true, std::size_t{1} << 30, inline_size, true}; }
    NicName nic() const override { return {ibv_get_device_name(context_->device), ""}; }
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    WaitPlan prepare_wait(std::vector<int>& fds) override;

    // Why this machine cannot run the transport with `device` (empty: any), or nothing.
    static std::optional<std::string> device_problem(const std::string& device);

    static constexpr std::size_t inline_size = 64;
    static constexpr std::uint32_t send_depth = 256, recv_depth = send_depth, signal_every = send_depth / 4;

private:
    struct Peer {
        rdma_cm_id* id = nullptr;
        ibv_qp* qp = nullptr;
        std::vector<CommandBytes> recv_buffers;
        ibv_mr* recv_mr = nullptr;
        std::uint32_t sends_outstanding = 0; // posted and not yet known complete
        std::uint32_t unsignalled = 0; // posted since the last signalled one
        std::vector<std::uint32_t> reposts; // receive slots consumed this poll
        bool connected = false;
    };
    void setup_qp(std::uint32_t peer, rdma_cm_id* id);
    // Posts receive buffers `slots` of a peer as one chain.
    void post_recvs(std::uint32_t peer, const std::vector<std::uint32_t>& slots);
    // Whether the next send to `peer` must be signalled; counts it either way.
    bool take_signal(Peer& p);
    void check_connection_events();
    void take(const ibv_wc& wc, std::span<Completion> out, std::size_t& n); // one work completion
    void acknowledge_cq_events();
    void handle_cm_event(rdma_cm_event* event);
    // ok, no_resource (send queue full) or error (connection lost, last_error_ says so).
    PostStatus can_post(std::uint32_t peer);

    VerbsOptions options_;
    const RunKey& key_;
    rdma_event_channel* channel_ = nullptr;
    rdma_cm_id* listener_ = nullptr;
    ibv_context* context_ = nullptr;
    ibv_pd* pd_ = nullptr;
    ibv_comp_channel* completion_channel_ = nullptr; // the CQ's events, for prepare_wait
    ibv_cq* cq_ = nullptr;
    std::vector<ibv_wc> taken_while_arming_; // completions prepare_wait found, for the next poll
    std::vector<Peer> peers_;
    std::vector<ibv_mr*> mrs_;
    std::vector<MemoryRegion> regions_; // key: page offset << 48 | (index + 1) << 32 | rkey
    struct WriteSlot {
        std::uint64_t cookie = 0;
        std::uint32_t retires = 0; // work requests its signalled notice completes (it, its write, the unsignalled before)
    };
    std::vector<WriteSlot> write_slots_;
    std::vector<std::uint32_t> free_cookies_;
    std::string address_;
    std::uint32_t connected_ = 0;
    std::vector<std::uint32_t> peers_to_repost_;
    std::int64_t next_cm_check_ns_ = 0;
};

} // namespace evb
