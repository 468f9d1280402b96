// The libfabric transport: one reliable datagram endpoint (FI_EP_RDM) per rank, addresses
// (fi_getname) exchanged through evbench's bootstrap and inserted into an address vector in rank
// order, so a peer's fi_addr_t is its rank; each address carries where the rank's region table
// is. Commands are fi_injectdata of 64 B into pre-posted receives, the remote CQ data naming the
// sender and the kind; a fragment is an fi_write into the BU's slot followed by a 24 B notice
// (imm, offset, length) that send-after-write ordering (FI_ORDER_SAW, required of the provider)
// delivers after the data. -FI_EAGAIN is no_resource, an error completion is peer_lost naming the
// peer, and so is a peer silent for --heartbeat; progress is driven by poll().
#pragma once
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "drivers/transport/region_directory.hpp"
#include "drivers/transport/write_wire.hpp"
#include "core/ring_queue.hpp"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

struct OfiOptions {
    std::string provider; // empty: $FI_PROVIDER, else the first that offers what the driver needs
    std::string domain; // empty: the provider's first
};

class OfiTransport final : public PeerTransport {
public:
    // Throws std::runtime_error naming what is missing.
    // heartbeat: --heartbeat, 0 for none.
    OfiTransport(std::uint32_t rank, std::uint32_t size, const OfiOptions& options, Picoseconds heartbeat = {});
    ~OfiTransport() override;

    const char* name() const override { return "ofi"; }
    Capabilities capabilities() const override {
        return {.native_rma = true, .max_message = max_message_, .inline_size = command_bytes, .beats = true};
    }
    std::string describe() const override; // "libfabric provider P, domain D"
    NicName nic() const override; // its domain: an RDMA device or an interface
    std::string local_address() override;
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    WaitPlan prepare_wait(std::vector<int>& fds) override;

    // Why this machine cannot run the transport with `options`, or nothing.
    static std::optional<std::string> provider_problem(const OfiOptions& options);
    // Every provider and domain this machine offers that the driver can run on ("shm on shm").
    static std::vector<std::string> usable_providers();

    static constexpr std::uint32_t receives = 256; // pre-posted, for commands and notices
    static constexpr std::uint32_t writes_per_peer = 256; // in flight, then no_resource
    static constexpr std::uint32_t table_capacity = 256;
    static constexpr std::uint64_t table_key = 0xFFFF; // the region table's key, where the provider takes ours

private:
    // Every operation's context: libfabric hands it back in the completion.
    struct Operation {
        fi_context2 context; // first: FI_CONTEXT2 mode
        enum class Kind : std::uint8_t { receive, write, table_read } kind;
        std::uint32_t index; // receive slot, write slot, or the peer whose region table is read
    };
    struct WriteSlot {
        std::uint32_t peer = 0;
        std::uint64_t cookie = 0;
    };
    struct Peer {
        std::uint32_t writes_in_flight = 0;
        RingQueue<WriteNotice> notices{0}; // written, notice not yet taken by the provider
        bool notices_waiting = false;
    };
    void beat_unless_closing();
    void send_notices(std::uint32_t peer);
    PostStatus read_table(std::uint32_t peer);
    void release_table_read(std::uint32_t peer);
    bool nothing_in_flight() const { return free_writes_.size() == write_slots_.size() && reads_in_flight_ == 0; }
    // Registers memory (bound to the endpoint where the provider asks); throws naming `what`.
    fid_mr* reg(void* base, std::size_t length, std::uint64_t access, std::uint64_t key, const char* what);
    void post_receive(std::uint32_t slot);
    PostStatus check_peer(std::uint32_t peer);
    PostStatus inject(std::uint32_t peer, const void* bytes, std::size_t length, std::uint64_t kind);
    void read_error(); // one error completion: its peer is lost
    void emit(const Completion& c, std::span<Completion> out, std::size_t& n);

    fi_info* info_ = nullptr;
    fid_fabric* fabric_ = nullptr;
    fid_domain* domain_ = nullptr;
    fid_av* av_ = nullptr;
    fid_cq* cq_ = nullptr;
    int wait_fd_ = -1; // the completion queue's wait object (FI_WAIT_FD), -1 when the provider has none
    fid_ep* ep_ = nullptr;
    bool virtual_addresses_ = false; // FI_MR_VIRT_ADDR: a remote address is the region's base + offset
    bool local_registration_ = false; // FI_MR_LOCAL: buffers of receives and reads are registered too
    fid_mr* receive_mr_ = nullptr;
    std::size_t max_message_ = 0;
    std::uint32_t per_peer_limit_ = 1; // writes in flight per peer
    std::vector<std::uint32_t> peers_with_notices_;
    std::vector<fi_addr_t> addresses_;
    std::vector<Peer> peers_;
    std::vector<fid_mr*> mrs_;
    std::vector<MemoryRegion> regions_; // key: index + 1, the provider's key too
    // Every write is checked against the target's region table, read with fi_read: the tcp and
    // shm providers leave a write to a bad key or range without any completion.
    RegionDirectory directory_;
    fid_mr* table_mr_ = nullptr;
    std::vector<std::uint64_t> table_at_; // per peer: where its table is (address or offset 0)
    std::vector<std::uint64_t> table_keys_; // per peer: its table's key (the provider's, with FI_MR_PROV_KEY)
    std::vector<fid_mr*> table_read_mrs_;
    std::uint32_t reads_in_flight_ = 0;
    bool closing_ = false; // no more heartbeats
    // FI_MR_LOCAL: per peer, the registered copy a read lands in
    std::vector<Operation> table_reads_;
    std::vector<CommandBytes> receive_buffers_;
    std::vector<Operation> receive_ops_;
    std::vector<Operation> write_ops_;
    std::vector<WriteSlot> write_slots_;
    std::vector<std::uint32_t> free_writes_;
};

} // namespace evb
