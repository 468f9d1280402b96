// Memory pools: fixed-size blocks carved from one allocation made once at start, bound to a NUMA
// node, in huge pages where asked and available, locked and pre-faulted, and loaned by index.
// Nothing is allocated on the steady-state path. Registration with a transport is the executor's
// separate step; it records the key peers name when they write into the pool (set_remote_key).
#pragma once
#include "core/ring_queue.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace evb {

// --hugepages: automatic takes hugetlb pages when enough are free, else transparent huge pages
// (madvise), else normal pages; on insists on hugetlb pages; off uses normal pages only.
enum class HugePages { automatic, on, off };
std::string to_string(HugePages h);

enum class PageBacking { hugetlb, transparent, normal };
std::string to_string(PageBacking b);

struct PoolMemory {
    int numa_node = -1; // -1: leave placement to the kernel (first touch)
    HugePages huge_pages = HugePages::automatic;
    // Simulated runs: no pre-faulting or locking, and blocks are loaned newest-first (never-used
    // blocks in index order), so the memory touched follows the blocks in use at once rather than
    // the pool's size (eq. 3.1's m N c fragments per RU would be N^2 c for the whole simulation).
    bool on_demand = false;
};

class MemoryPool {
public:
    // Throws std::runtime_error when the memory cannot be had (--hugepages on without enough
    // free huge pages names how many it needs).
    MemoryPool(std::size_t block_size, std::uint32_t blocks, const PoolMemory& memory = {});
    ~MemoryPool();
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    std::byte* data() const { return base_; }
    std::size_t size() const { return bytes_; }
    std::size_t block_size() const { return block_size_; }
    std::uint32_t blocks() const { return blocks_; }
    std::byte* block(std::uint32_t i) const { return base_ + i * block_size_; }
    std::size_t offset_of(std::uint32_t i) const { return i * block_size_; }

    // How it was set up: the pages asked for, and whether mlock succeeded (errno if not).
    PageBacking backing() const { return backing_; }
    bool locked() const { return lock_errno_ == 0; }
    int lock_errno() const { return lock_errno_; }

    std::optional<std::uint32_t> acquire();
    void release(std::uint32_t block);
    std::uint32_t in_use() const {
        return on_demand_ ? fresh_ - static_cast<std::uint32_t>(released_.size()) : blocks_ - static_cast<std::uint32_t>(free_.size());
    }
    // Blocks [0, touched()) have been loaned at least once; the others were never touched (all
    // of them are, from the start, unless on_demand).
    std::uint32_t touched() const { return on_demand_ ? fresh_ : blocks_; }
    std::uint32_t peak_in_use() const { return peak_; }

    // The key a peer names to write into this pool, once the executor registered it.
    void set_remote_key(std::uint64_t key) { remote_key_ = key; }
    std::uint64_t remote_key() const { return remote_key_; }

private:
    std::byte* base_ = nullptr;
    std::size_t bytes_ = 0;
    std::size_t mapped_bytes_ = 0; // bytes_ rounded up to the page size it was mapped with
    std::size_t block_size_;
    std::uint32_t blocks_;
    PageBacking backing_ = PageBacking::normal;
    int lock_errno_ = 0;
    // FIFO: loans rotate through the whole pool, as a readout buffer's data streams through
    // memory, instead of one cache-hot block serving every request.
    RingQueue<std::uint32_t> free_;
    // on_demand: blocks [fresh_, blocks_) never loaned, and a stack of the released ones.
    bool on_demand_ = false;
    std::uint32_t fresh_ = 0;
    std::vector<std::uint32_t> released_;
    std::uint32_t peak_ = 0;
    std::uint64_t remote_key_ = 0;
};

} // namespace evb
