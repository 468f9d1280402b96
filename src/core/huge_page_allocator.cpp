#include "core/huge_page_allocator.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace evb {

std::size_t huge_page_backed_size(std::size_t bytes) { return round_up_to_huge_page(bytes); }

void* allocate_huge_page_backed(std::size_t bytes) {
    const std::size_t length = huge_page_backed_size(bytes);
    if (length < bytes) throw std::bad_alloc();
    // Map one huge page more, then trim to a 2 MiB boundary: the kernel backs only aligned 2 MiB
    // ranges with a huge page.
    void* mapped = mmap(nullptr, length + huge_page_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    auto* raw = static_cast<char*>(mapped);
    auto* start = reinterpret_cast<char*>(round_up_to_huge_page(reinterpret_cast<std::uintptr_t>(raw)));
    if (start > raw) munmap(raw, static_cast<std::size_t>(start - raw));
    if (const std::size_t tail = huge_page_bytes - static_cast<std::size_t>(start - raw)) munmap(start + length, tail);
    madvise(start, length, MADV_HUGEPAGE); // a hint: where refused (THP "never"), normal pages
    return start;
}

void free_huge_page_backed(void* p, std::size_t bytes) noexcept { munmap(p, huge_page_backed_size(bytes)); }

} // namespace evb
