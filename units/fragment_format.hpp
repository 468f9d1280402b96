// The fragment as the readout board would deliver it: a 32 B header (event id, source, length,
// payload checksum) and a payload of 64-bit words. Word 0 stamps the event, the rest follow a
// per-source pattern written once into the RU's pool, so producing a fragment costs a header.
#pragma once
#include "units/config.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace evb {

struct FragmentHeader {
    std::uint32_t magic;
    std::uint32_t source;
    std::uint64_t event;
    std::uint32_t payload_bytes;
    std::uint32_t flags;
    std::uint64_t checksum; // sum of the payload's 64-bit words
};
static_assert(sizeof(FragmentHeader) == fragment_header_size);
constexpr std::uint32_t fragment_magic = 0xEB0F5A6Du;

std::uint64_t pattern_word(std::uint32_t source, std::uint64_t word_index);
std::uint64_t event_stamp(std::uint32_t source, std::uint64_t event);

// Size of fragment (event, source): deterministic, so BUs know what to expect. Multiple of 8.
class FragmentSizer {
public:
    explicit FragmentSizer(const UnitConfig& config);
    std::uint32_t size(std::uint64_t event, std::uint32_t source) const; // total bytes incl. header
    std::uint32_t max_size() const { return max_; }

private:
    SizeDistribution dist_;
    double spread_;
    std::uint64_t seed_;
    std::vector<double> base_; // per source
    std::uint32_t max_;
};

// The RU's data source: fills pool blocks once, then stamps one fragment per request.
class FragmentGenerator {
public:
    // max_size: the largest fragment; memory_size: bytes of a pool block (smaller when only
    // headers are kept in memory).
    FragmentGenerator(std::uint32_t source, std::uint32_t max_size, std::uint32_t memory_size);
    void prefill(std::byte* block) const; // writes the pattern into a block of memory_size bytes
    // Writes header and stamp for `event` into a prefilled block; `size` from FragmentSizer. The
    // tag (header flags) tells a fragment's data (0) from its metadata segments (1 + index).
    void stamp(std::byte* block, std::uint64_t event, std::uint32_t size, std::uint32_t tag = 0) const;

private:
    std::uint64_t payload_checksum(const std::byte* block, std::uint64_t event, std::uint32_t payload_words) const;
    std::uint32_t source_;
    std::uint32_t max_words_, memory_words_;
    std::vector<std::uint64_t> prefix_; // sum of pattern words [1, 512k)
};

enum class FragmentCheck { ok, bad_header, bad_payload };

// The BU's check: header always; with full, the payload checksum and the event stamp too.
FragmentCheck check_fragment(const std::byte* data, std::uint64_t event, std::uint32_t source, std::uint32_t expected_size, bool full,
                             std::uint32_t tag = 0);

} // namespace evb
