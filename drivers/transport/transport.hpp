// The one interface every driver implements (drivers/<name>/). Drivers know peers, regions and
// bytes, never events: a command is an opaque 64 B payload to them, and units talk to them only
// through the executor's Context (src/exec/node.hpp).
#pragma once
#include "core/placement.hpp"
#include "core/time.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace evb {

// A control command as drivers carry it: 64 opaque bytes (DAQPIPE's command size).
constexpr std::size_t command_bytes = 64;
using CommandBytes = std::array<std::byte, command_bytes>;

struct MemoryRegion {
    std::byte* base = nullptr;
    std::size_t length = 0;
    std::uint64_t key = 0; // remote key: what a peer names in post_write
};

enum class PostStatus { ok, no_resource, error };

// One write: `length` bytes at `local_offset` of the registered region `local`, into the peer's
// region `remote_key` at `remote_offset`; the peer sees a write_arrived carrying `imm`, the
// writer a write_done with `cookie`.
struct WriteRequest {
    MemoryRegion local;
    std::size_t local_offset = 0;
    std::uint64_t remote_key = 0;
    std::uint64_t remote_offset = 0;
    std::size_t length = 0;
    std::uint32_t imm = 0;
    std::uint64_t cookie = 0;
};

struct Completion {
    enum class Kind : std::uint8_t {
        write_done, // a post_write of ours finished; its buffer may be reused
        message, // a control command arrived (command)
        write_arrived, // a peer's write landed in one of our regions (imm, offset, length)
        peer_lost, // a connection broke; `error` names why, after peer_loss_prefix(peer)
    };
    Kind kind{};
    std::uint32_t peer = 0;
    std::uint32_t imm = 0;
    std::uint64_t cookie = 0; // caller context of the post that finished
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    CommandBytes command{};
    const char* error = nullptr;
    // write_arrived: the write's first head_bytes bytes are in `command`, not in the region (a
    // region given to deliver_write_heads, on a transport that does not move the bytes).
    std::uint8_t head_bytes = 0;
};

// The completion of a peer's write that landed in one of this rank's regions.
inline Completion write_arrived(std::uint32_t peer, std::uint32_t imm, std::uint64_t offset, std::uint64_t length) {
    Completion c;
    c.kind = Completion::Kind::write_arrived;
    c.peer = peer;
    c.imm = imm;
    c.offset = offset;
    c.length = length;
    return c;
}

struct Capabilities {
    bool native_rma = false; // true: writes land without the target's CPU
    std::size_t max_message = 0; // largest single write
    std::size_t inline_size = 64; // commands up to this size are copied at post time
    bool pins_memory = false; // registration pins pages for a NIC: every pool must be lockable (RLIMIT_MEMLOCK)
    // It beats to its peers and names one lost that is silent for --heartbeat: its fabric says
    // nothing of a peer that stopped, or went away while idle (the others' connections do).
    bool beats = false;
};

// How a peer_lost completion's error begins, the peer named: "rank 3: ".
inline std::string peer_loss_prefix(std::uint32_t peer) { return "rank " + std::to_string(peer) + ": "; }

// The reason every driver gives for a post to a rank that does not exist.
inline std::string no_such_rank(std::uint32_t peer, std::uint32_t size) {
    return "no rank " + std::to_string(peer) + " (ranks are 0.." + std::to_string(size - 1) + ")";
}

class Transport {
public:
    virtual ~Transport() = default;
    virtual const char* name() const = 0;
    virtual std::uint32_t rank() const = 0;
    virtual std::uint32_t size() const = 0;
    virtual Capabilities capabilities() const = 0;
    // What this rank's transport runs on (provider, devices), for the run's header; empty: nothing to add.
    virtual std::string describe() const { return {}; }
    // The NIC this transport's traffic goes through, where it knows (placement puts memory and
    // threads near it); empty: the executor looks for the interface owning the listen address.
    virtual NicName nic() const { return {}; }

    // Address peers use to reach this rank, exchanged through the bootstrap.
    virtual std::string local_address() = 0;
    // Connects to every peer; throws std::runtime_error naming the peer on failure or timeout.
    virtual void connect(const std::vector<std::string>& addresses, Picoseconds timeout) = 0;

    virtual MemoryRegion register_memory(std::byte* base, std::size_t length) = 0;
    // Writes into `region` need reach their receiver only as their first command_bytes bytes,
    // in the completion. Transports that move the bytes ignore this; the simulator then leaves
    // the region untouched (a BU's slots: 64 B per credit and RU would otherwise stay resident).
    virtual void deliver_write_heads(const MemoryRegion& region) { (void)region; }
    // For transports whose peers cannot write by the returned key alone (--rails: a key per NIC):
    // what peers must know of this rank's registrations, exchanged by the executor once every
    // region is registered, before the first post. Empty: nothing to exchange.
    virtual std::string registration_card() const { return {}; }
    // Every rank's card, in rank order.
    virtual void learn_registrations(const std::vector<std::string>& cards) { (void)cards; }
    // --rails: bytes posted as writes to other ranks on each NIC so far; empty for one NIC.
    struct RailBytes {
        std::string nic;
        std::uint64_t bytes = 0;
    };
    virtual std::vector<RailBytes> rail_bytes() const { return {}; }

    // Posting never blocks. Commands are copied at post time (inline) and produce no completion.
    // Commands to a peer arrive in the order posted, and so do writes; a command may arrive
    // before a write posted ahead of it (tcp sends them on connections of their own, so that a
    // request does not wait behind data): what a receiver needs of a write, it learns from the
    // write's own completion.
    virtual PostStatus post_send(std::uint32_t peer, const CommandBytes& command) = 0;
    virtual PostStatus post_write(std::uint32_t peer, const WriteRequest& w) = 0;

    // Why the last post returned PostStatus::error ("connection to rank 3 lost: ...").
    virtual std::string last_error() const { return "transport error"; }

    // Non-blocking progress: fills `out`, returns how many completions it wrote.
    virtual std::size_t poll(std::span<Completion> out) = 0;
    // Called by the executor when poll() found nothing and it wants to sleep (--poll event or
    // adaptive): arms the transport's wait objects and appends the descriptors that become
    // readable when there is work (sleep: the executor sleeps in poll(2) on them), or says that
    // work may be there already (poll_again). A transport with no wait object
    // (Driver::no_wait_object) appends nothing: sleep when it only waits for its peers (the
    // executor naps briefly, Reactor::idle); while its own writes in flight need our calls to
    // progress, poll_again, or yield where a neighbour it waits for may need the core (the peer
    // process, or the holder of a lock in shared memory, as libfabric shm's).
    enum class WaitPlan { poll_again, yield, sleep };
    virtual WaitPlan prepare_wait(std::vector<int>& fds) {
        (void)fds;
        return WaitPlan::poll_again;
    }
    // The executor declared `peer` lost (--on-failure continue): nothing more from it may land
    // in this rank's memory or count, even if it wakes up. tcp stops reading its connection;
    // the default relies on the executor dropping the peer's completions (an RDMA write of a
    // woken peer can still land: its queue pair is not torn down).
    virtual void fence(std::uint32_t peer) { (void)peer; }
};

} // namespace evb
