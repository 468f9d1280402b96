// The verbs transport (rdma-core): connections through rdma_cm with IP addresses (InfiniBand,
// RoCE, soft-RoCE alike), one reliable-connected QP per peer, one memory region per pool
// registered zero-based (ibv_reg_mr_iova: remote offsets are addresses), fragments as RDMA
// WRITE WITH IMMEDIATE straight into the BU's slot, commands as inline SENDs into pre-posted
// per-QP receive rings, one completion queue polled by the reactor, and the send queue depth
// respected (a full queue answers no_resource; the node retries in order).
#pragma once
#include "ring_queue.hpp"
#include "transport.hpp"

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

struct VerbsOptions {
    std::string device;        // empty: whichever device owns the address
    std::uint32_t port = 1;
    std::string listen_host;   // empty or 127.0.0.1: the first IPv4 address in the device's GID table
};

class VerbsTransport final : public Transport {
public:
    // Throws std::runtime_error ("no RDMA device: load rdma_rxe or use another transport", ...).
    VerbsTransport(std::uint32_t rank, std::uint32_t size, VerbsOptions options);
    ~VerbsTransport() override;

    const char* name() const override { return "verbs"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    Capabilities capabilities() const override { return {true, std::size_t{1} << 30, inline_size}; }
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset, std::uint64_t remote_key,
                          std::uint64_t remote_offset, std::size_t length, std::uint32_t imm, std::uint64_t cookie) override;
    std::string last_error() const override { return last_error_; }
    std::size_t poll(std::span<Completion> out) override;

    // Why this machine cannot run the transport with `device` (empty: any), or nothing.
    static std::optional<std::string> device_problem(const std::string& device);

    static constexpr std::size_t inline_size = 64;
    static constexpr std::uint32_t send_depth = 256, recv_depth = 128;

private:
    struct Peer {
        rdma_cm_id* id = nullptr;
        ibv_qp* qp = nullptr;
        std::vector<CommandBytes> recv_buffers;
        ibv_mr* recv_mr = nullptr;
        std::uint32_t sends_outstanding = 0;
        bool connected = false, lost = false;
        std::string lost_reason;   // set once; peers_ never resizes after construction
    };
    void setup_qp(std::uint32_t peer, rdma_cm_id* id);
    void post_recv(std::uint32_t peer, std::uint32_t slot);
    void handle_cm_event(rdma_cm_event* event);
    void lose(std::uint32_t peer, const std::string& why);
    // ok, no_resource (send queue full) or error (connection lost, last_error_ says so).
    PostStatus can_post(std::uint32_t peer);

    std::uint32_t rank_, size_;
    VerbsOptions options_;
    rdma_event_channel* channel_ = nullptr;
    rdma_cm_id* listener_ = nullptr;
    ibv_context* context_ = nullptr;
    ibv_pd* pd_ = nullptr;
    ibv_cq* cq_ = nullptr;
    std::vector<Peer> peers_;
    std::vector<ibv_mr*> mrs_;
    std::vector<MemoryRegion> regions_;   // key: rkey << 32 | (index + 1)
    std::vector<std::uint64_t> write_cookies_;
    std::vector<std::uint32_t> free_cookies_;
    RingQueue<Completion> ready_{256};
    std::string address_, last_error_;
    std::uint32_t connected_ = 0;
};

} // namespace evb
