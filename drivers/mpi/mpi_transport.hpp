// The MPI transport (Open MPI): commands are tagged non-blocking sends into pre-posted receives;
// a fragment write is either a header message plus the data received straight into the target's
// registered region (default), or, with --mpi-rma, an MPI_Put into a dynamic window followed by a
// notification message. MPI is initialised with MPI_THREAD_FUNNELED: only the reactor thread
// calls it. Bootstrap, progress and results still go through evbench's own bootstrap service.
#pragma once
#include "ring_queue.hpp"
#include "transport.hpp"

#include <mpi.h>

#include <array>
#include <string>
#include <vector>

namespace evb {

class MpiTransport final : public Transport {
public:
    // Initialises MPI (once per process); throws std::runtime_error if MPI's rank or size
    // disagree with the launcher's, or the thread level is too low.
    MpiTransport(std::uint32_t rank, std::uint32_t size, bool rma);
    ~MpiTransport() override;

    const char* name() const override { return "mpi"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    Capabilities capabilities() const override { return {rma_, std::size_t{1} << 30, 64}; }
    std::string local_address() override { return "mpi:" + std::to_string(rank_); }
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset, std::uint64_t remote_key,
                          std::uint64_t remote_offset, std::size_t length, std::uint32_t imm, std::uint64_t cookie) override;
    std::string last_error() const override { return last_error_; }
    std::size_t poll(std::span<Completion> out) override;

private:
    // One control packet: a command, or the announcement of a write (its data follows, or with
    // RMA has landed already).
    struct Control {
        enum Kind : std::uint32_t { command = 1, write_header = 2, write_notice = 3 } kind;
        std::uint32_t imm;
        std::uint64_t key, offset, length;
        std::int32_t data_tag;   // send/receive mode: the tag its data travels with
        CommandBytes payload;
    };
    enum class Op : std::uint8_t { control_recv, control_send, data_recv, data_send };
    struct Pending {
        Op op;
        std::uint32_t slot = 0;   // control buffer
        std::uint32_t peer = 0, imm = 0;
        std::uint64_t offset = 0, length = 0, cookie = 0;
    };

    std::uint32_t take_send_slot();
    void track(MPI_Request request, const Pending& info);
    void post_control_recv(std::uint32_t slot);
    void fail(const std::string& what, int code);

    std::uint32_t rank_, size_;
    bool rma_;
    MPI_Win window_ = MPI_WIN_NULL;
    std::vector<MemoryRegion> regions_;   // send/recv mode: key = index + 1
    std::vector<std::uint32_t> writes_to_;   // per peer: writes posted, numbering their data tags
    std::vector<Control> recv_buffers_, send_buffers_;
    std::vector<std::uint32_t> free_send_;
    std::vector<MPI_Request> requests_;
    std::vector<Pending> pending_;
    std::vector<int> done_indices_;
    std::vector<MPI_Status> statuses_;
    std::vector<std::pair<Pending, int>> finished_;   // this poll's completed requests and their sources
    RingQueue<Completion> ready_{256};   // RMA writes complete at post time
    std::string last_error_;
};

} // namespace evb
