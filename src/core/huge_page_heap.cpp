#include "core/huge_page_heap.hpp"

#include "core/huge_page_allocator.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 // Linux 6.1's value; older C library headers do not name it
#endif

namespace evb {

bool grow_heap_ahead(std::size_t ahead) { return mallopt(M_TOP_PAD, static_cast<int>(std::min<std::size_t>(ahead, INT_MAX))) == 1; }

std::size_t advise_heap_huge_pages() {
    // The populated part of the heap ends where malloc's free top chunk (the room ahead) begins:
    // collapsing beyond it would fill untouched room with huge pages.
    const struct mallinfo2 info = mallinfo2();
    const auto brk_end = reinterpret_cast<std::uintptr_t>(sbrk(0));
    const std::uintptr_t populated_end = brk_end - std::min<std::uintptr_t>(brk_end, info.keepcost);
    std::size_t advised = 0;
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);) {
        unsigned long long start = 0, end = 0;
        if (!line.ends_with("[heap]") || std::sscanf(line.c_str(), "%llx-%llx", &start, &end) != 2) continue;
        if (madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE) != 0) continue;
        advised += end - start;
        // Only whole, aligned 2 MiB ranges can become huge pages. A refusal (an old kernel, no
        // free huge page) leaves the pages as they are.
        const std::uintptr_t first = round_up_to_huge_page(start);
        const std::uintptr_t last = std::min<std::uintptr_t>(end, round_up_to_huge_page(populated_end));
        if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_COLLAPSE);
    }
    return advised;
}

} // namespace evb
