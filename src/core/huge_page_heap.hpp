// malloc's heap on 2 MiB transparent huge pages, for a process whose hot state is thousands of
// small allocations scattered through it (the simulator: the units' per-slot tables, the event
// wheel's slots, the message pools). On 4 KiB pages nearly every first touch of one misses the
// TLB, which a virtual machine pays as a two-level page walk (see huge_page_allocator.hpp).
//
// Two steps, because the kernel's advice holds for the mappings that exist when it is given: an
// extension of the heap made later is a new mapping on 4 KiB pages. So malloc is first told to
// grow the heap well ahead of what it needs (glibc's M_TOP_PAD), and once the set-up has
// allocated, the heap (with the room ahead) is advised, and what it already holds is moved into
// huge pages. What the run allocates next then lands in advised memory.
#pragma once
#include <cstddef>

namespace evb {

// Before the allocations: each time malloc extends its heap, by `ahead` bytes more than asked.
// Untouched, the room costs address space only. False where malloc does not take it (a
// sanitizer's allocator, a malloc other than glibc's).
bool grow_heap_ahead(std::size_t ahead);

// After them: advises the heap's mappings huge (MADV_HUGEPAGE) and collapses their populated
// part into huge pages now (MADV_COLLAPSE, Linux 6.1; an older kernel's khugepaged does it over
// time). Returns the bytes of heap advised: 0 if the kernel refused or there is no heap mapping.
std::size_t advise_heap_huge_pages();

} // namespace evb
