// Huge-page-backed memory for the simulator's hot tables (core/huge_page_allocator.hpp,
// core/huge_page_arena.hpp): where it is mapped, what the kernel was asked, and how blocks are
// carved and reused.
#include "huge_page_allocator.hpp"
#include "huge_page_arena.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory_resource>
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

} // namespace

TEST(HugePageMemory, LargeTablesAreMappedOnA2MiBBoundaryAndAdvisedHugeSmallOnesStayOnTheHeap) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageVector<std::uint64_t> large(evb::huge_page_minimum / 8 * 3);   // 768 KiB
    std::iota(large.begin(), large.end(), 0);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % two_mib, 0u);
    EXPECT_TRUE(advised_huge(large.data())) << vm_flags_of(large.data());
    EXPECT_EQ(evb::huge_page_backed_size(large.size() * 8), two_mib);
    EXPECT_EQ(evb::huge_page_backed_size(two_mib + 1), 2 * two_mib);
    large.resize(large.size() * 4);   // grows into a new mapping, contents kept
    EXPECT_EQ(large[12345], 12345u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.data()) % two_mib, 0u);

    evb::HugePageVector<std::uint64_t> small(1000, 7);   // 8 KB: operator new
    EXPECT_FALSE(advised_huge(small.data())) << vm_flags_of(small.data());
    EXPECT_EQ(std::accumulate(small.begin(), small.end(), std::uint64_t{0}), 7000u);
}

TEST(HugePageMemory, AnArenaReusesAFreedBlockOfTheSameSizeClass) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageArena arena;
    void* a = arena.allocate(100, 16);   // a 128 B block
    void* b = arena.allocate(128, 16);
    EXPECT_NE(a, b);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
    EXPECT_TRUE(advised_huge(a)) << vm_flags_of(a);
    arena.deallocate(a, 100, 16);
    EXPECT_EQ(arena.allocate(120, 8), a);     // same class, handed out again
    void* c = arena.allocate(129, 16);        // the next class: a new block
    EXPECT_NE(c, a);
    EXPECT_NE(c, b);
    EXPECT_EQ(arena.mapped_bytes(), two_mib);
}

TEST(HugePageMemory, AnArenaCarvesBlocksThatNeverOverlapAndMapsMoreChunksAsItFills) {
    evb::HugePageArena arena;
    std::vector<std::pair<char*, std::size_t>> blocks;
    const std::size_t sizes[] = {64, 4096, 200, 65536, 16, 1000};
    for (int i = 0; i < 180; ++i) {   // 180 blocks in classes of 64 B to 64 KiB, 2.13 MB: a second chunk
        const std::size_t size = sizes[i % 6];
        auto* p = static_cast<char*>(arena.allocate(size, 8));
        std::fill_n(p, size, static_cast<char>(i));
        blocks.emplace_back(p, size);
    }
    EXPECT_EQ(arena.mapped_bytes(), 2 * two_mib);
    for (std::size_t i = 0; i < blocks.size(); ++i)   // each still holds what was written into it
        EXPECT_TRUE(std::all_of(blocks[i].first, blocks[i].first + blocks[i].second, [i](char x) { return x == static_cast<char>(i); })) << i;
    std::sort(blocks.begin(), blocks.end());
    for (std::size_t i = 1; i < blocks.size(); ++i) EXPECT_LE(blocks[i - 1].first + blocks[i - 1].second, blocks[i].first);
}

TEST(HugePageMemory, AnArenaGivesALargeBlockItsOwnMappingAndUnmapsItWhenFreed) {
    if (!kernel_has_thp()) GTEST_SKIP() << "this kernel has no transparent huge pages";
    evb::HugePageArena arena;
    void* small = arena.allocate(64, 8);
    void* large = arena.allocate(3 << 20, 64);   // above half a chunk: 4 MiB of its own
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large) % two_mib, 0u);
    EXPECT_EQ(arena.mapped_bytes(), two_mib + 2 * two_mib);
    arena.deallocate(large, 3 << 20, 64);
    EXPECT_EQ(arena.mapped_bytes(), two_mib);
    EXPECT_TRUE(vm_flags_of(large).empty()) << vm_flags_of(large);   // unmapped
    EXPECT_TRUE(advised_huge(small));
    // A container on the arena grows through its size classes and keeps its contents.
    std::pmr::vector<int> v(&arena);
    for (int i = 0; i < 100000; ++i) v.push_back(i);
    EXPECT_EQ(std::accumulate(v.begin(), v.end(), 0LL), 100000LL * 99999 / 2);
}
