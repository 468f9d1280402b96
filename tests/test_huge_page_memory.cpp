// Huge-page-backed memory for the simulator's hot tables (core/huge_page_allocator.hpp,
// core/huge_page_arena.hpp, core/huge_page_heap.hpp): where it is mapped, what the kernel was
// asked, and how blocks are carved and reused.
#include "core/huge_page_allocator.hpp"
#include "core/huge_page_arena.hpp"
#include "core/huge_page_heap.hpp"
#include "core/mapping_facts.hpp"

#include <sys/utsname.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory_resource>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::uintptr_t two_mib = evb::huge_page_bytes;

// The VmFlags line of the mapping that holds `p` (/proc/self/smaps), empty if none does.
std::string vm_flags_of(const void* p) {
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        std::uintptr_t start = 0, end = 0;
        char dash = 0;
        std::istringstream range(line);
        if (range >> std::hex >> start >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
            inside = start <= at && at < end;
            continue;
        }
        if (inside && line.rfind("VmFlags:", 0) == 0) return line;
    }
    return {};
}

// A kernel without transparent huge pages refuses the advice: there is nothing to check.
bool kernel_has_thp() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

bool advised_huge(const void* p) {
    const std::string flags = vm_flags_of(p);
    EXPECT_FALSE(flags.empty()) << "no mapping holds " << p;
    return flags.find(" hg") != std::string::npos;
}

// MADV_COLLAPSE came with Linux 6.1.
bool kernel_collapses_on_request() {
    utsname u{};
    int major = 0, minor = 0;
    return uname(&u) == 0 && std::sscanf(u.release, "%d.%d", &major, &minor) == 2 && (major > 6 || (major == 6 && minor >= 1));
}

// Under AddressSanitizer malloc is the sanitizer's, not on the heap mapping. GCC says so with
// __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitizer_malloc = true;
#elif defined(__has_feature)
constexpr bool sanitizer_malloc = __has_feature(address_sanitizer);
#else
constexpr bool sanitizer_malloc = false;
#endif

} // namespace

TEST(HugePageMemory, LargeTablesAreMappedOnA2MiBBoundaryAndAdvisedHugeSmallOnesStayOnTheHeap) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageVector<std::uint64_t> large(evb::huge_page_minimum / 8 * 3); // 768 KiB
    std::iota(large.begin(), large.end(), 0);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % two_mib, 0u);
    EXPECT_TRUE(advised_huge(large.data())) << vm_flags_of(large.data());
    EXPECT_EQ(evb::huge_page_backed_size(large.size() * 8), two_mib);
    EXPECT_EQ(evb::huge_page_backed_size(two_mib + 1), 2 * two_mib);
    large.resize(large.size() * 4); // grows into a new mapping, contents kept
    EXPECT_EQ(large[12345], 12345u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % two_mib, 0u);

    evb::HugePageVector<std::uint64_t> small(1000, 7); // 8 KB: operator new
    EXPECT_FALSE(advised_huge(small.data())) << vm_flags_of(small.data());
    EXPECT_EQ(std::accumulate(small.begin(), small.end(), std::uint64_t{0}), 7000u);
}

TEST(HugePageMemory, AnArenaReusesAFreedBlockOfTheSameSizeClass) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageArena arena;
    void* a = arena.allocate(100, 16); // a 128 B block
    void* b = arena.allocate(128, 16);
    EXPECT_NE(a, b);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
    EXPECT_TRUE(advised_huge(a)) << vm_flags_of(a);
    arena.deallocate(a, 100, 16);
    EXPECT_EQ(arena.allocate(120, 8), a); // same class, handed out again
    void* c = arena.allocate(129, 16); // the next class: a new block
    EXPECT_NE(c, a);
    EXPECT_NE(c, b);
    EXPECT_EQ(arena.mapped_bytes(), two_mib);
}

TEST(HugePageMemory, AnArenaCarvesBlocksThatNeverOverlapAndMapsMoreChunksAsItFills) {
    evb::HugePageArena arena;
    std::vector<std::pair<char*, std::size_t>> blocks;
    const std::size_t sizes[] = {64, 4096, 200, 65536, 16, 1000};
    for (int i = 0; i < 180; ++i) { // 180 blocks in classes of 64 B to 64 KiB, 2.13 MB: a second chunk
        const std::size_t size = sizes[i % 6];
        auto* p = static_cast<char*>(arena.allocate(size, 8));
        std::fill_n(p, size, static_cast<char>(i));
        blocks.emplace_back(p, size);
    }
    EXPECT_EQ(arena.mapped_bytes(), 2 * two_mib);
    for (std::size_t i = 0; i < blocks.size(); ++i) // each still holds what was written into it
        EXPECT_TRUE(std::all_of(blocks[i].first, blocks[i].first + blocks[i].second, [i](char x) { return x == static_cast<char>(i); }))
            << i;
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t i = 1; i < blocks.size(); ++i) EXPECT_LE(blocks[i - 1].first + blocks[i - 1].second, blocks[i].first);
}

TEST(HugePageMemory, AnArenaGivesALargeBlockItsOwnMappingAndUnmapsItWhenFreed) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageArena arena;
    void* small = arena.allocate(64, 8);
    void* large = arena.allocate(3 << 20, 64); // above half a chunk: 4 MiB of its own
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % two_mib, 0u);
    EXPECT_EQ(arena.mapped_bytes(), two_mib + 2 * two_mib);
    arena.deallocate(large, 3 << 20, 64);
    EXPECT_EQ(arena.mapped_bytes(), two_mib);
    EXPECT_TRUE(vm_flags_of(large).empty()) << vm_flags_of(large); // unmapped
    EXPECT_TRUE(advised_huge(small));
    // A container on the arena grows through its size classes and keeps its contents.
    std::pmr::vector<int> v(&arena);
    for (int i = 0; i < 100000; ++i) v.push_back(i);
    EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0LL), 100000LL * 99999 / 2);
}

// The simulator's set-up allocates, then the heap is advised; what the run allocates after must
// land in advised memory too. Without the room ahead, malloc extends the heap by a new mapping,
// which the kernel does not advise: the blocks allocated after the advice are on 4 KiB pages.
TEST(HugePageMemory, TheHeapAdvisedHugeAfterTheSetUpAlsoHoldsWhatIsAllocatedAfter) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    if (sanitizer_malloc) GTEST_SKIP() << "the sanitizer's malloc does not use the heap mapping";
    ASSERT_TRUE(evb::grow_heap_ahead(std::size_t{32} << 20));
    std::vector<std::unique_ptr<char[]>> set_up, run;
    for (int i = 0; i < 4096; ++i) set_up.push_back(std::make_unique<char[]>(1024)); // 4 MiB, below the mmap threshold
    EXPECT_GE(evb::advise_heap_huge_pages(), std::size_t{4} << 20);
    EXPECT_TRUE(advised_huge(set_up.front().get())) << vm_flags_of(set_up.front().get());
    EXPECT_TRUE(advised_huge(set_up.back().get())) << vm_flags_of(set_up.back().get());
    if (kernel_collapses_on_request()) { // the set-up's pages already moved into huge pages
        EXPECT_GE(evb::mapping_facts(set_up.back().get()).huge_bytes, two_mib);
    }
    for (int i = 0; i < 8192; ++i) run.push_back(std::make_unique<char[]>(1024)); // 8 MiB more
    EXPECT_TRUE(advised_huge(run.back().get())) << vm_flags_of(run.back().get());
    EXPECT_TRUE(evb::grow_heap_ahead(std::size_t{128} << 10)); // glibc's default again
}
