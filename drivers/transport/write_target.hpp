// The one bounds check of a write into registered memory, for every driver: whether a write's
// bytes lie wholly inside a region, and where in it they land. The offset and length of a write
// that arrives come from a peer: `offset + length` wraps in 64 bits, and a tcp frame at offset
// 2^64 - 16 had passed a check written that way, writing 16 B before its region.
#pragma once
#include "drivers/transport/transport.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace evb {

// [offset, offset + length) lies inside `size` bytes; no sum that could wrap.
constexpr bool span_fits(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
    return length <= size && offset <= size - length;
}

struct WriteTarget {
    std::byte* at = nullptr; // where the first byte lands; nullptr: refused
    std::string why; // the refusal, for the driver to prefix with whom it came from
};

// Where a write of `length` B at `offset` into the region with `key` (its index in `regions` + 1)
// lands, or why it is refused: no such key, or the bytes not wholly inside that region.
WriteTarget write_target(std::span<const MemoryRegion> regions, std::uint64_t key, std::uint64_t offset, std::uint64_t length);

// The same for the source of a write this rank posts: "" when `length` B at `offset` lie inside
// `local`, else why not.
std::string local_source_error(const MemoryRegion& local, std::uint64_t offset, std::uint64_t length);

} // namespace evb
