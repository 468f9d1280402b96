#include "units/message_mix.hpp"

namespace evb {

MessageMix::MessageMix(const UnitConfig& c)
    : data_(c.data_segments), meta_(c.meta_segments), meta_size_(static_cast<std::uint32_t>(c.meta_size)),
      headers_only_(c.fragment_memory != 0), data_area_(c.data_area()),
      data_memory_(static_cast<std::uint32_t>(headers_only_ ? c.data_area() / c.data_segments : c.data_area())),
      meta_memory_(static_cast<std::uint32_t>(c.meta_piece_memory())) {}

Piece MessageMix::piece(std::uint32_t p, std::uint32_t fragment_size) const {
    if (p >= data_) return {data_area_ + std::uint64_t{p - data_} * meta_memory_, meta_size_};
    std::uint64_t words = fragment_size / 8;
    std::uint64_t first = words * p / data_, last = words * (p + 1) / data_;
    std::uint64_t offset = headers_only_ ? std::uint64_t{p} * data_memory_ : first * 8;
    return {offset, static_cast<std::uint32_t>((last - first) * 8)};
}

FragmentCheck check_mixed_fragment(const MessageMix& mix, const std::byte* fragment, std::uint64_t event, std::uint32_t source,
                                   std::uint32_t size, bool full) {
    auto verdict = check_fragment(fragment, event, source, size, full);
    for (std::uint32_t p = mix.data_pieces(); p < mix.pieces() && verdict == FragmentCheck::ok; ++p)
        verdict = check_fragment(fragment + mix.piece(p, size).offset, event, source, mix.meta_size(), full, mix.tag(p));
    return verdict;
}

} // namespace evb
