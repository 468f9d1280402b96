// An allocator for tables read at random across megabytes (the simulator's ports, queues, credits
// and packets). On 4 KiB pages nearly every such read also misses the TLB, and a page walk in a
// virtual machine walks two page tables; on 2 MiB transparent huge pages a few TLB entries cover
// them all. Debian's kernels give huge pages only where asked (THP "madvise"): this allocator
// asks, for allocations of at least huge_page_minimum. Smaller ones come from operator new, so a
// small fabric keeps its memory small (a huge allocation takes whole 2 MiB pages).
#pragma once
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace evb {

inline constexpr std::size_t huge_page_minimum = std::size_t{256} << 10;
// The size the kernel backs with one transparent huge page (x86-64's and arm64's PMD with 4 KiB pages).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;
// A size or an address rounded up to the next 2 MiB boundary (wraps to 0 within 2 MiB of the top).
constexpr std::uintptr_t round_up_to_huge_page(std::uintptr_t n) { return (n + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes; }

// `bytes` (at least huge_page_minimum) mapped on a 2 MiB boundary, rounded up to whole 2 MiB, and
// advised to be backed by transparent huge pages; throws std::bad_alloc. Freed with
// free_huge_page_backed and the same `bytes`.
void* allocate_huge_page_backed(std::size_t bytes);
void free_huge_page_backed(void* p, std::size_t bytes) noexcept;
// What such an allocation maps: `bytes` rounded up to whole 2 MiB.
std::size_t huge_page_backed_size(std::size_t bytes);

template <class T>
struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <class U>
    HugePageAllocator(const HugePageAllocator<U>& /*other*/) noexcept {}

    T* allocate(std::size_t n) {
        if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        const std::size_t bytes = n * sizeof(T);
        if (bytes < huge_page_minimum) return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
        return static_cast<T*>(allocate_huge_page_backed(bytes));
    }
    void deallocate(T* p, std::size_t n) noexcept {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < huge_page_minimum) {
            ::operator delete (p, std::align_val_t{alignof(T)});
            return;
        }
        free_huge_page_backed(p, bytes);
    }
    template <class U>
    bool operator==(const HugePageAllocator<U>& /*other*/) const noexcept {
        return true;
    }
};

template <class T>
using HugePageVector = std::vector<T, HugePageAllocator<T>>;

} // namespace evb
