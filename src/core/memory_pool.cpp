#include "core/memory_pool.hpp"

#include "core/placement.hpp"
#include "core/quantity.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>

namespace evb {

std::string to_string(HugePages h) {
    switch (h) {
    case HugePages::automatic: return "auto";
    case HugePages::on: return "on";
    case HugePages::off: return "off";
    }
    return "?";
}

std::string to_string(PageBacking b) {
    switch (b) {
    case PageBacking::hugetlb: return "huge pages";
    case PageBacking::transparent: return "transparent huge pages";
    case PageBacking::normal: return "normal pages";
    }
    return "?";
}

namespace {

// The default huge page size and how many are free (/proc/meminfo).
struct HugePageSupply {
    std::size_t page_bytes = 0;
    std::uint64_t free = 0;
};

HugePageSupply huge_page_supply() {
    HugePageSupply s;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("Hugepagesize:", 0) == 0) s.page_bytes = std::stoull(line.substr(13)) * 1024;
        if (line.rfind("HugePages_Free:", 0) == 0) s.free = std::stoull(line.substr(15));
    }
    return s;
}

bool transparent_huge_pages_possible() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(f, modes);
    return !modes.empty() && modes.find("[never]") == std::string::npos;
}

void* map_anonymous(std::size_t bytes, int extra_flags) {
    return mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
}

} // namespace

MemoryPool::MemoryPool(std::size_t block_size, std::uint32_t blocks, const PoolMemory& memory)
    : block_size_((block_size + 63) & ~std::size_t{63}), blocks_(blocks) {
    bytes_ = block_size_ * blocks_;
    if (bytes_ == 0) throw std::invalid_argument("memory pool of zero bytes");
    void* p = MAP_FAILED;
    if (memory.huge_pages != HugePages::off) {
        const HugePageSupply supply = huge_page_supply();
        if (supply.page_bytes > 0) {
            const std::size_t rounded = (bytes_ + supply.page_bytes - 1) / supply.page_bytes * supply.page_bytes;
            const std::uint64_t needed = rounded / supply.page_bytes;
            if (needed <= supply.free) p = map_anonymous(rounded, MAP_HUGETLB);
            if (p != MAP_FAILED) {
                mapped_bytes_ = rounded;
                backing_ = PageBacking::hugetlb;
            } else if (memory.huge_pages == HugePages::on) {
                throw std::runtime_error("--hugepages on: a pool of " + format_size(bytes_) + " needs " + std::to_string(needed) +
                                         " huge pages of " + format_size(supply.page_bytes) + ", " + std::to_string(supply.free) +
                                         " are free (raise /proc/sys/vm/nr_hugepages, or --hugepages auto)");
            }
        } else if (memory.huge_pages == HugePages::on) {
            throw std::runtime_error("--hugepages on: this kernel offers no huge pages (no Hugepagesize in /proc/meminfo)");
        }
    }
    if (p == MAP_FAILED) {
        p = map_anonymous(bytes_, 0);
        if (p == MAP_FAILED)
            throw std::runtime_error("cannot map " + std::to_string(bytes_) + " B of buffer memory: " + std::strerror(errno));
        mapped_bytes_ = bytes_;
        if (memory.huge_pages == HugePages::off) {
            madvise(p, bytes_, MADV_NOHUGEPAGE);
        } else if (transparent_huge_pages_possible() && madvise(p, bytes_, MADV_HUGEPAGE) == 0) {
            backing_ = PageBacking::transparent; // the kernel may still give normal pages: read back with mapping_facts
        }
    }
    base_ = static_cast<std::byte*>(p);
    if (memory.on_demand) {
        on_demand_ = true;
        return;
    }
    bind_to_numa_node(base_, mapped_bytes_, memory.numa_node); // before the first touch: pages are born there
    // Locked, as RDMA registration needs; without CAP_IPC_LOCK, RLIMIT_MEMLOCK caps it, and the
    // executor decides whether that is fatal (lock_errno).
    // The system call itself: AddressSanitizer's mlock interceptor does nothing and says yes.
    if (syscall(SYS_mlock, base_, mapped_bytes_) != 0) lock_errno_ = errno;
    std::memset(base_, 0, bytes_); // pre-fault now, not on the data path
    free_ = RingQueue<std::uint32_t>(blocks_);
    for (std::uint32_t i = 0; i < blocks_; ++i) free_.push(i);
}

MemoryPool::~MemoryPool() {
    if (base_) munmap(base_, mapped_bytes_);
}

std::optional<std::uint32_t> MemoryPool::acquire() {
    std::uint32_t b = 0;
    if (on_demand_) {
        if (!released_.empty()) {
            b = released_.back();
            released_.pop_back();
        } else if (fresh_ < blocks_) {
            b = fresh_++;
        } else {
            return std::nullopt;
        }
    } else {
        if (free_.empty()) return std::nullopt;
        b = free_.front();
        free_.pop();
    }
    if (in_use() > peak_) peak_ = in_use();
    return b;
}

void MemoryPool::release(std::uint32_t block) {
    if (on_demand_)
        released_.push_back(block);
    else
        free_.push(block);
}

} // namespace evb
