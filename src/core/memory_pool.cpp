#include "memory_pool.hpp"

#include "placement.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace evb {

MemoryPool::MemoryPool(std::size_t block_size, std::uint32_t blocks, int numa_node)
    : block_size_((block_size + 63) & ~std::size_t{63}), blocks_(blocks) {
    bytes_ = block_size_ * blocks_;
    if (bytes_ == 0) throw std::invalid_argument("memory pool of zero bytes");
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        throw std::runtime_error("cannot map " + std::to_string(bytes_) + " B of buffer memory: " + std::strerror(errno));
    base_ = static_cast<std::byte*>(p);
    madvise(base_, bytes_, MADV_HUGEPAGE);   // best effort: fewer TLB misses on large pools
    bind_to_numa_node(base_, bytes_, numa_node);
    mlock(base_, bytes_);                    // best effort: RDMA drivers need pinned pages, others benefit
    std::memset(base_, 0, bytes_);           // first touch now, not on the data path
    free_ = RingQueue<std::uint32_t>(blocks_);
    for (std::uint32_t i = 0; i < blocks_; ++i) free_.push(i);
}

MemoryPool::~MemoryPool() {
    if (base_) munmap(base_, bytes_);
}

std::optional<std::uint32_t> MemoryPool::acquire() {
    if (free_.empty()) return std::nullopt;
    auto b = free_.front();
    free_.pop();
    if (in_use() > peak_) peak_ = in_use();
    return b;
}

void MemoryPool::release(std::uint32_t block) { free_.push(block); }

} // namespace evb
