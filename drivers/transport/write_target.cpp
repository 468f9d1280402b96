#include "drivers/transport/write_target.hpp"

namespace evb {

namespace {

std::string bytes_at(std::uint64_t offset, std::uint64_t length) {
    return std::to_string(length) + " B at offset " + std::to_string(offset);
}

} // namespace

WriteTarget write_target(std::span<const MemoryRegion> regions, std::uint64_t key, std::uint64_t offset, std::uint64_t length) {
    if (key == 0 || key > regions.size())
        return {nullptr,
                "a write of " + bytes_at(offset, length) + " into region " + std::to_string(key) +
                    ", which is not registered here: a write outside the registered regions"};
    const MemoryRegion& r = regions[key - 1];
    if (!span_fits(offset, length, r.length))
        return {nullptr,
                "a write of " + bytes_at(offset, length) + " into region " + std::to_string(key) + " of " + std::to_string(r.length) +
                    " B: outside the registered regions"};
    return {r.base + offset, {}};
}

std::string local_source_error(const MemoryRegion& local, std::uint64_t offset, std::uint64_t length) {
    if (span_fits(offset, length, local.length)) return {};
    return "a write from " + bytes_at(offset, length) + " of a local region of " + std::to_string(local.length) +
        " B: beyond the local region";
}

} // namespace evb
