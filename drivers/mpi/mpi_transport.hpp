// The MPI transport (Open MPI): commands are tagged non-blocking sends into pre-posted receives;
// a fragment write is either a header message plus the data received straight into the target's
// registered region (default), or, with --mpi-rma, an MPI_Put into a dynamic window followed by a
// notice once a flush has made it visible. MPI is initialised with MPI_THREAD_FUNNELED (only the
// reactor thread calls it) and finalised at process exit. Posting never blocks: at most
// queue_depth posts are in flight per peer, beyond that a post answers no_resource.
#pragma once
#include "drivers/transport/peer_loss.hpp"
#include "drivers/transport/peer_transport.hpp"
#include "drivers/transport/region_directory.hpp"
#include "drivers/transport/write_wire.hpp"
#include "core/ring_queue.hpp"

#include <mpi.h>

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace evb {

// MPI is initialised once per process (MPI_THREAD_FUNNELED) and finalised when it exits, so that
// transports may come and go, each on its own communicator.
void mpi_init_once();

class MpiTransport final : public PeerTransport {
public:
    // On MPI_COMM_WORLD; throws std::runtime_error if MPI's rank or size disagree with the
    // launcher's, or the thread level is too low.
    MpiTransport(std::uint32_t rank, std::uint32_t size, bool rma);
    // On a duplicate of `comm` (collective over it): one transport per communicator, so that
    // several may live one after the other in a process (the conformance suite does).
    MpiTransport(MPI_Comm comm, bool rma);
    ~MpiTransport() override;

    const char* name() const override { return "mpi"; }
    Capabilities capabilities() const override { return {rma_, std::size_t{1} << 30, 64}; }
    std::string local_address() override { return "mpi:" + std::to_string(rank_); }
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    // MPI has no wait object: a rank naps (Reactor::idle) when it only waits for its peers. Not
    // while a transfer of its own is in flight: MPI moves its data only inside our calls to it.
    // Then it polls on, not yields: Open MPI yields by itself on a node mpirun knows is
    // oversubscribed, and a yield beside a busy process gives that process the core for a whole slice.
    WaitPlan prepare_wait(std::vector<int>&) override {
        return ready_.empty() && unflushed_peers_.empty() && transfers_ == 0 ? WaitPlan::sleep : WaitPlan::poll_again;
    }

    static constexpr std::uint32_t queue_depth = 256; // posts in flight per peer
    static constexpr std::uint32_t directory_capacity = 256; // --mpi-rma: regions per rank

private:
    // One control packet: a command, or the announcement of a write (its data follows, or with
    // RMA has landed already).
    struct Control {
        enum Kind : std::uint32_t { command = 1, write_header = 2, write_notice = 3 };
        WriteHeader head; // its word: the Kind
        std::int32_t data_tag; // send/receive mode: the tag its data travels with
        CommandBytes payload;
    };
    enum class Op : std::uint8_t { control_recv, control_send, data_recv, data_send, directory_get };
    struct Pending {
        Op op;
        std::uint32_t slot = 0; // control buffer
        std::uint32_t peer = 0, imm = 0;
        std::uint64_t offset = 0, length = 0, cookie = 0;
    };
    struct Put {
        WriteHeader notice; // what its write_notice will say
        std::uint64_t cookie;
    };
    struct Peer {
        std::uint32_t in_flight = 0; // requests and unflushed puts
        std::uint32_t writes = 0; // numbers the data tags (send/receive mode)
        std::vector<Put> unflushed;
    };

    void init(MPI_Comm comm);
    std::uint32_t take_send_slot();
    void track(MPI_Request request, const Pending& info);
    void post_control_recv(std::uint32_t slot);
    PostStatus send_control(std::uint32_t peer, const Control& control);
    PostStatus check_peer(std::uint32_t peer);
    // --mpi-rma: ok with `target` set, no_resource while the peer's directory is being read,
    // error for a key or range the peer never registered.
    PostStatus resolve(std::uint32_t peer, std::uint64_t key, std::uint64_t offset, std::size_t length, MPI_Aint& target);
    void flush_puts(std::span<Completion> out, std::size_t& n);
    void emit(const Completion& c, std::span<Completion> out, std::size_t& n);
    void handle_control(std::uint32_t slot, int source, std::span<Completion> out, std::size_t& n);
    void fail(const std::string& what, int code);

    bool rma_;
    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_Win window_ = MPI_WIN_NULL;
    std::vector<MemoryRegion> regions_; // key = index + 1 (both modes)
    // --mpi-rma: every put is checked against the target's region table, read with MPI_Rget
    // (Open MPI itself performs a put outside the attached memory and corrupts the target's heap).
    std::unique_ptr<RegionDirectory> directory_;
    std::vector<MPI_Aint> directory_at_; // per peer: its table's address in the window
    std::vector<Peer> peers_;
    std::vector<Control> recv_buffers_; // control_receives of them, sized once: receives are posted into them
    // A control send's packet stays where MPI_Isend was given it until the send completes (the tcp
    // BTL reads it later, shared memory at once): a deque grows without moving its elements (a
    // vector moved them, and the tcp BTL sent freed memory: headers outside every region, crashes).
    std::deque<Control> send_buffers_;
    std::vector<std::uint32_t> free_send_;
    RingQueue<std::uint32_t> control_order_{0}; // control receive slots in the order they were posted
    std::vector<int> control_source_; // per slot: the sender once it completed, else -1
    std::vector<MPI_Request> requests_;
    std::vector<Pending> pending_;
    std::vector<std::uint32_t> free_requests_; // indices of requests_ that hold MPI_REQUEST_NULL
    std::vector<int> done_indices_;
    std::vector<MPI_Status> statuses_;
    std::vector<std::pair<Pending, int>> finished_; // this poll's completed requests and their sources
    std::vector<std::uint32_t> unflushed_peers_;
    std::uint32_t transfers_ = 0; // requests in flight other than the pre-posted control receives
};

} // namespace evb
