// What the kernel says about one mapping of this process (/proc/self/smaps): how much of it is
// in huge pages and how much is locked. Read back after a pool is set up, so the header states
// what happened rather than what was asked.
#pragma once
#include <cstddef>
#include <cstdint>

namespace evb {

struct MappingFacts {
    bool found = false;
    std::uint64_t size_bytes = 0;
    std::uint64_t kernel_page_bytes = 0; // 2 MiB for a hugetlb mapping
    std::uint64_t huge_bytes = 0; // in huge pages: transparent (AnonHugePages) or hugetlb
    std::uint64_t locked_bytes = 0;
};

MappingFacts mapping_facts(const void* address);

} // namespace evb
