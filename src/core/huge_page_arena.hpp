// Small blocks of hot, long-lived data structures (the simulator's input-queue rings) packed
// into 2 MiB transparent huge pages, rather than scattered through malloc's heap on 4 KiB pages,
// where nearly every first touch of one also misses the TLB (see huge_page_allocator.hpp).
// Blocks are powers of two from 64 B; a freed block is handed out again for the next request of
// its size, and one above half a chunk gets its own mapping. The memory goes back to the system
// when the arena is destroyed. Not thread-safe.
#pragma once
#include "core/huge_page_allocator.hpp"

#include <array>
#include <cstddef>
#include <memory_resource>
#include <vector>

namespace evb {

class HugePageArena : public std::pmr::memory_resource {
public:
    HugePageArena() = default;
    ~HugePageArena() override;
    HugePageArena(const HugePageArena&) = delete;
    HugePageArena& operator=(const HugePageArena&) = delete;

    // Bytes mapped for it: its chunks and its large blocks.
    std::size_t mapped_bytes() const;

private:
    static constexpr std::size_t chunk_bytes = huge_page_bytes;
    static constexpr std::size_t smallest_log2 = 6, largest_log2 = 20; // 64 B .. 1 MiB from chunks

    void* do_allocate(std::size_t bytes, std::size_t alignment) override;
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override;
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

    struct Mapping {
        void* start;
        std::size_t bytes;
    };
    std::vector<Mapping> chunks_, large_;
    std::array<std::vector<void*>, largest_log2 - smallest_log2 + 1> free_; // by size class
    char* next_ = nullptr; // the rest of the newest chunk
    char* end_ = nullptr;
};

} // namespace evb
