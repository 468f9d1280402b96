#include "core/huge_page_arena.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <new>

// Under AddressSanitizer, only the bytes handed out and not given back may be touched: a ring
// written past its end is caught as it would be on the heap. (No-ops in other builds.)
#include <sanitizer/asan_interface.h>

namespace evb {

namespace {

// The size class of a block of `bytes` aligned to `alignment`: log2 of the power of two it takes.
std::size_t size_class_log2(std::size_t bytes, std::size_t alignment, std::size_t smallest_log2) {
    return std::max<std::size_t>(smallest_log2, std::bit_width(std::max(bytes, alignment) - 1));
}

} // namespace

HugePageArena::~HugePageArena() {
    for (const Mapping& m : chunks_) {
        ASAN_UNPOISON_MEMORY_REGION(m.start, m.bytes); // its addresses may be mapped again, by anyone
        free_huge_page_backed(m.start, m.bytes);
    }
    for (const Mapping& m : large_) free_huge_page_backed(m.start, m.bytes);
}

std::size_t HugePageArena::mapped_bytes() const {
    std::size_t total = chunks_.size() * chunk_bytes;
    for (const Mapping& m : large_) total += huge_page_backed_size(m.bytes);
    return total;
}

void* HugePageArena::do_allocate(std::size_t bytes, std::size_t alignment) {
    if (bytes == 0) bytes = 1;
    const std::size_t log2 = size_class_log2(bytes, alignment, smallest_log2);
    if (log2 > largest_log2) { // its own mapping, on a 2 MiB boundary (above 1 MiB: past huge_page_minimum)
        void* p = allocate_huge_page_backed(bytes);
        large_.push_back(Mapping{p, bytes});
        return p;
    }
    std::vector<void*>& free = free_[log2 - smallest_log2];
    if (!free.empty()) {
        void* p = free.back();
        free.pop_back();
        ASAN_UNPOISON_MEMORY_REGION(p, bytes);
        return p;
    }
    const std::size_t size = std::size_t{1} << log2, align = std::max<std::size_t>(alignment, 64);
    auto aligned = [align](char* p) { return reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(p) + align - 1) & ~(align - 1)); };
    if (next_ == nullptr || aligned(next_) + size > end_) { // the rest of the chunk, if any, is left unused
        next_ = static_cast<char*>(allocate_huge_page_backed(chunk_bytes));
        end_ = next_ + chunk_bytes;
        chunks_.push_back(Mapping{next_, chunk_bytes});
        ASAN_POISON_MEMORY_REGION(next_, chunk_bytes);
    }
    char* p = aligned(next_);
    next_ = p + size;
    ASAN_UNPOISON_MEMORY_REGION(p, bytes);
    return p;
}

void HugePageArena::do_deallocate(void* p, std::size_t bytes, std::size_t alignment) {
    if (bytes == 0) bytes = 1;
    const std::size_t log2 = size_class_log2(bytes, alignment, smallest_log2);
    if (log2 > largest_log2) {
        auto it = std::find_if(large_.begin(), large_.end(), [p](const Mapping& m) { return m.start == p; });
        free_huge_page_backed(it->start, it->bytes);
        large_.erase(it);
        return;
    }
    ASAN_POISON_MEMORY_REGION(p, std::size_t{1} << log2);
    free_[log2 - smallest_log2].push_back(p);
}

} // namespace evb
