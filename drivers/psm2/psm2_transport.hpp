// The PSM2 transport (Omni-Path): one endpoint and matched queue per rank, endpoint ids exchanged
// through evbench's bootstrap. PSM2 has no RMA: as the mpi driver does without --mpi-rma, a
// command is an MQ send on the control tag into pre-posted receives, and a fragment is a control
// header (key, offset, length, imm, sequence) followed by the data on a tag of its own, which the
// target receives straight into the BU's slot (a receive posted at the slot's offset on reading
// the header). A header outside the target's regions is refused there (peer_lost naming why), its
// data never received. At most 256 sends in flight per peer, then no_resource; a peer silent for
// --heartbeat is lost; an MQ error on a request is peer_lost naming the peer.
#pragma once
#include "core/index_pool.hpp"
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "drivers/transport/write_wire.hpp"
#include "core/ring_queue.hpp"

#include <psm2.h>
#include <psm2_mq.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

struct Psm2Options {
    std::string job_key; // every rank of one job opens its endpoint with the same key
};

class Psm2Transport final : public PeerTransport {
public:
    // Throws std::runtime_error naming what failed.
    // heartbeat: --heartbeat, 0 for none.
    Psm2Transport(std::uint32_t rank, std::uint32_t size, const Psm2Options& options, Picoseconds heartbeat = {});
    ~Psm2Transport() override;

    const char* name() const override { return "psm2"; }
    Capabilities capabilities() const override {
        return {.native_rma = false, .max_message = std::size_t{1} << 30, .inline_size = command_bytes, .beats = true};
    }
    std::string describe() const override;
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    // PSM2 has no wait object: a rank naps (Reactor::idle) when it only waits for its peers. Not
    // while a transfer of its own is in flight: PSM2 progresses only inside our calls to it.
    // No wait object: a nap while it waits for its peers; while its own transfers need our calls
    // it polls on (as mpi: PSM2 is the library under Open MPI on Omni-Path, untried here).
    WaitPlan prepare_wait(std::vector<int>&) override { return ready_.empty() && transfers_ == 0 ? WaitPlan::sleep : WaitPlan::poll_again; }

    // Why PSM2 cannot start on this machine (psm2_init or opening an endpoint fails), or nothing.
    static std::optional<std::string> start_problem();

    static constexpr std::uint32_t receives = 256; // pre-posted control receives
    static constexpr std::uint32_t sends_per_peer = 256;

private:
    // One control packet: a command, a heartbeat, or the header of a write whose data follows.
    struct Control {
        enum Kind : std::uint32_t { command = 1, write_header = 2, heartbeat = 3 };
        WriteHeader head; // its word: the Kind
        std::uint32_t data_sequence, pad;
        CommandBytes payload;
    };
    // What a request is, handed back by PSM2 as its context.
    struct Pending {
        enum class Op : std::uint8_t { control_recv, control_send, data_send, data_recv } op;
        std::uint32_t slot = 0; // control buffer
        std::uint32_t peer = 0, imm = 0;
        std::uint64_t offset = 0, length = 0, cookie = 0;
    };
    struct Peer {
        psm2_epaddr_t address = nullptr;
        std::uint32_t in_flight = 0; // sends not yet complete
        std::uint32_t data_sequence = 0; // numbers the data tags of its writes
    };
    PostStatus check_peer(std::uint32_t peer);
    PostStatus send_control(std::uint32_t peer, const Control& control);
    void post_control_recv(std::uint32_t slot);
    void handle_control(std::uint32_t slot, std::uint32_t source);

    psm2_ep_t ep_ = nullptr;
    psm2_epid_t epid_ = 0;
    psm2_mq_t mq_ = nullptr;
    std::vector<Peer> peers_;
    std::vector<MemoryRegion> regions_; // key: index + 1
    std::vector<Control> recv_buffers_, send_buffers_;
    std::vector<std::uint32_t> free_sends_;
    RingQueue<std::uint32_t> control_order_{0}; // control receive slots in the order they were posted
    std::vector<std::int64_t> control_source_; // per slot: the sender once it completed, else -1
    IndexPool<Pending> pending_; // by the index a request's context carries
    std::uint32_t transfers_ = 0; // requests in flight other than the pre-posted control receives
};

} // namespace evb
