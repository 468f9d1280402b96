// The simulated transport's shared side: every rank's posts become messages of the simulated
// host adapters (netsim::FabricSim), and their arrivals become the completions a real fabric
// would produce. Commands travel as 64 B messages, fragment writes as RDMA writes with
// immediate of their full length. Ranks on the same simulated host (a node's RU and BU, ppn 2,
// the EM on rank 0) reach each other through the adapter's loopback: one transfer at a time at
// link rate, as an RDMA write to self crosses the adapter. Only the first copy_bytes (the run's
// fragment_memory) of a write are copied: the rest exists on the simulated wire only.
// With the fabric cut into parts run by threads (netsim::FabricSim::parts), a rank's calls come
// from its host's part: what a transfer needs is kept by the sender's part (read by the
// receiver's, which only reads it) and freed by the sender at its ACK; the ranks with new
// completions are listed per part.
#pragma once
#include "netsim/engine/fabric_sim.hpp"
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <memory>
#include <string>
#include <vector>

namespace evb {

class SimNetwork {
public:
    // host_of_rank: the simulated host (index in the fabric's rank order) of every rank.
    SimNetwork(netsim::FabricSim& fabric, std::vector<std::uint32_t> host_of_rank, std::size_t copy_bytes);

    std::uint32_t ranks() const { return static_cast<std::uint32_t>(host_of_rank_.size()); }
    std::uint32_t host_of(std::uint32_t rank) const { return host_of_rank_[rank]; }
    netsim::FabricSim& fabric() { return fabric_; }

    MemoryRegion register_memory(std::uint32_t rank, std::byte* base, std::size_t length);
    // Writes into this region land as their first bytes in the completion, not in memory.
    void deliver_write_heads(std::uint32_t rank, std::uint64_t key) { heads_only_.at(rank).at(key - 1) = true; }
    // Returns an empty string, or why the command is refused (no such rank).
    std::string send(std::uint32_t from, std::uint32_t to, const CommandBytes& command);
    // Returns an empty string, or why the write is refused (unknown key, out of bounds).
    std::string write(std::uint32_t from, std::uint32_t to, const WriteRequest& w);

    // The last byte of a fabric message arrived: land it and queue the receiver's completion.
    void delivered(const netsim::SimMessage& m);
    // Its ACK reached the sender: a write's completion for the writer (whether there was one).
    bool acknowledged(const netsim::SimMessage& m);
    // Engine timers with this bit set in their tag are loopback transfers finishing.
    static constexpr std::uint64_t loopback_tag = std::uint64_t{1} << 62;
    // Fabric messages with this bit set in their tag are writes, whose transfer waits for the ACK
    // (a send's is free once delivered, and may hold a new transfer by the time its ACK is back).
    static constexpr std::uint64_t write_tag = std::uint64_t{1} << 61;
    void loopback_done(std::uint64_t tag);

    RingQueue<Completion>& inbound(std::uint32_t rank) { return inbound_[rank]; }
    // The ranks of the fabric's part `part` that got completions since the last call.
    void take_dirty(std::uint32_t part, std::vector<std::uint32_t>& out);
    std::uint32_t part_of_rank(std::uint32_t rank) const { return part_of_rank_[rank]; }

    std::uint64_t bytes_through_memory() const;
    // An injected failure: nothing lands at `rank` any more and its senders never hear back, as
    // from a dead host (their writes are finished as dropped once they learn of the loss).
    void halt(std::uint32_t rank) { halted_[rank] = 1; }

private:
    struct Transfer {
        bool is_write = false;
        std::uint32_t from = 0, to = 0;
        CommandBytes command{};
        const std::byte* source = nullptr; // a write's bytes, in the writer's registered region
        std::size_t length = 0;
        std::uint64_t rkey = 0, remote_offset = 0, cookie = 0;
        std::uint32_t imm = 0;
        std::uint32_t next_free = UINT32_MAX;
    };
    // A part's transfers, in chunks that never move (another part's thread reads them while
    // this one adds more), and its other state.
    struct Part {
        static constexpr std::size_t chunk = 4096, max_chunks = 1 << 16;
        Part() { chunks.reserve(max_chunks); }
        std::vector<std::unique_ptr<Transfer[]>> chunks; // reserved: growing never moves the pointers
        std::size_t count = 0;
        std::uint32_t free = UINT32_MAX;
        std::vector<std::uint32_t> dirty;
        std::uint64_t local_bytes = 0;
        Transfer& operator[](std::uint32_t i) { return chunks[i / chunk][i % chunk]; }
    };
    // A transfer's tag: its index in its part, the part at bit 40.
    static constexpr int part_shift = 40;
    Part& part_of_tag(std::uint64_t tag) { return parts_[(tag >> part_shift) & 0xffff]; }
    Transfer& transfer(std::uint64_t tag) { return part_of_tag(tag)[static_cast<std::uint32_t>(tag)]; }
    std::uint64_t store(const Transfer& t); // in the sender's part: its tag
    void start(const Transfer& t, std::uint64_t bytes);
    void release(std::uint64_t tag);
    void land(const Transfer& t); // at the receiver
    void write_done(const Transfer& t); // at the writer
    void push(std::uint32_t rank, const Completion& c);

    netsim::FabricSim& fabric_;
    std::vector<std::uint32_t> host_of_rank_;
    std::size_t copy_bytes_;
    std::vector<std::vector<MemoryRegion>> regions_; // per rank; key = index + 1
    std::vector<std::vector<bool>> heads_only_; // per rank and region
    std::vector<RingQueue<Completion>> inbound_;
    std::vector<std::uint32_t> part_of_rank_;
    std::vector<Part> parts_; // per part of the fabric
    std::vector<std::uint8_t> is_dirty_; // per rank (bytes: ranks of two parts may be marked at once)
    std::vector<std::uint8_t> halted_; // per rank; changed between windows only
    std::vector<Picoseconds> loopback_free_; // per host: when its loopback is idle again
    double loopback_ps_per_byte_;
};

} // namespace evb
