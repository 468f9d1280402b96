#include "units/fragment_format.hpp"

#include "core/hash.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace evb {
namespace {
constexpr std::uint32_t words_per_chunk = 512; // prefix sums every 4 KiB
}

std::uint64_t pattern_word(std::uint32_t source, std::uint64_t word_index) { return mix64((std::uint64_t{source} << 40) ^ word_index); }

std::uint64_t event_stamp(std::uint32_t source, std::uint64_t event) { return mix64(event, source + 0x5EEDull); }

FragmentSizer::FragmentSizer(const UnitConfig& c)
    : dist_(c.size_distribution), spread_(c.size_spread), seed_(c.seed), max_(static_cast<std::uint32_t>(c.max_fragment_size())) {
    base_.resize(c.ru_count());
    for (std::uint32_t s = 0; s < c.ru_count(); ++s) base_[s] = static_cast<double>(c.fragment_size) * c.ru_scale_of(s);
}

std::uint32_t FragmentSizer::size(std::uint64_t event, std::uint32_t source) const {
    double bytes = base_[source];
    if (dist_ != SizeDistribution::fixed) {
        std::uint64_t h = mix64(seed_, event, source);
        double u1 = unit_interval(h), u2 = unit_interval(mix64(h));
        if (dist_ == SizeDistribution::uniform) {
            bytes *= 1 + spread_ * (2 * u1 - 1);
        } else {
            double z = std::sqrt(-2 * std::log(1 - u1)) * std::cos(2 * M_PI * u2);
            z = std::clamp(z, -4.0, 4.0);
            bytes *= dist_ == SizeDistribution::normal ? 1 + spread_ * z : std::exp(spread_ * z - spread_ * spread_ / 2);
        }
    }
    auto total = static_cast<std::uint64_t>(std::max(bytes, double{min_fragment_size}));
    total = (total + 7) & ~std::uint64_t{7};
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(total, max_ & ~7u));
}

FragmentGenerator::FragmentGenerator(std::uint32_t source, std::uint32_t max_size, std::uint32_t memory_size)
    : source_(source), max_words_((max_size - fragment_header_size) / 8),
      memory_words_(std::min(max_words_, (memory_size - fragment_header_size) / 8)) {
    prefix_.assign(max_words_ / words_per_chunk + 2, 0);
    std::uint64_t sum = 0;
    for (std::uint64_t i = 1; i < max_words_; ++i) {
        if (i % words_per_chunk == 0) prefix_[i / words_per_chunk] = sum;
        sum += pattern_word(source_, i);
    }
}

void FragmentGenerator::prefill(std::byte* block) const {
    auto* words = reinterpret_cast<std::uint64_t*>(block + fragment_header_size);
    for (std::uint64_t i = 1; i < memory_words_; ++i) words[i] = pattern_word(source_, i);
}

std::uint64_t FragmentGenerator::payload_checksum(const std::byte* block, std::uint64_t event, std::uint32_t payload_words) const {
    // Pattern words [1, n): the prefix table, then at most one chunk, read from the block where
    // it holds them and computed past its end (a block may hold only the header).
    const auto* words = reinterpret_cast<const std::uint64_t*>(block + fragment_header_size);
    std::uint32_t chunk = payload_words / words_per_chunk;
    std::uint64_t sum = event_stamp(source_, event) + prefix_[chunk];
    for (std::uint64_t i = std::max<std::uint64_t>(1, std::uint64_t{chunk} * words_per_chunk); i < payload_words; ++i)
        sum += i < memory_words_ ? words[i] : pattern_word(source_, i);
    return sum;
}

void FragmentGenerator::stamp(std::byte* block, std::uint64_t event, std::uint32_t size, std::uint32_t tag) const {
    std::uint32_t payload = size - fragment_header_size;
    FragmentHeader h{fragment_magic, source_, event, payload, tag, 0};
    h.checksum = payload_checksum(block, event, payload / 8);
    std::memcpy(block, &h, sizeof h);
    std::uint64_t s = event_stamp(source_, event);
    std::memcpy(block + fragment_header_size, &s, sizeof s);
}

FragmentCheck check_fragment(const std::byte* data, std::uint64_t event, std::uint32_t source, std::uint32_t expected_size, bool full,
                             std::uint32_t tag) {
    FragmentHeader h;
    std::memcpy(&h, data, sizeof h);
    if (h.magic != fragment_magic || h.source != source || h.event != event || h.flags != tag ||
        h.payload_bytes + fragment_header_size != expected_size)
        return FragmentCheck::bad_header;
    if (!full) return FragmentCheck::ok;
    const auto* words = reinterpret_cast<const std::uint64_t*>(data + fragment_header_size);
    if (words[0] != event_stamp(source, event)) return FragmentCheck::bad_payload;
    std::uint64_t sum = 0;
    for (std::uint32_t i = 0; i < h.payload_bytes / 8; ++i) sum += words[i];
    return sum == h.checksum ? FragmentCheck::ok : FragmentCheck::bad_payload;
}

} // namespace evb
