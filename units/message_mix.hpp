// Where each write of a fragment goes: the message mix of paper 003 sec. 3.3. A fragment of f
// bytes leaves as K data segments (its 8-byte words split evenly and contiguous in memory, so one
// header and checksum cover them) followed by M metadata segments of S bytes after the data area,
// each a small fragment of its own whose header carries the segment's tag. With fragment_memory
// (the simulator) every segment keeps only its first bytes in memory, each at a place of its own.
#pragma once
#include "units/config.hpp"
#include "units/fragment_format.hpp"

#include <cstdint>

namespace evb {

struct Piece {
    std::uint64_t offset; // within the fragment's area of an RU block or a BU slot
    std::uint32_t length; // bytes on the wire
};

class MessageMix {
public:
    explicit MessageMix(const UnitConfig& c);
    std::uint32_t pieces() const { return data_ + meta_; }
    std::uint32_t data_pieces() const { return data_; }
    std::uint32_t all_pieces() const { return pieces() == 32 ? ~0u : (1u << pieces()) - 1; } // one bit per piece
    // Piece p (data first) of a fragment whose data is `fragment_size` bytes.
    Piece piece(std::uint32_t p, std::uint32_t fragment_size) const;
    // Header tag of piece p: 0 for data, 1 + m for metadata segment m.
    std::uint32_t tag(std::uint32_t p) const { return p < data_ ? 0 : p - data_ + 1; }
    std::uint32_t meta_size() const { return meta_size_; }
    // Bytes of memory behind the data and behind one metadata segment.
    std::uint32_t data_memory() const { return data_memory_; }
    std::uint32_t meta_memory() const { return meta_memory_; }

private:
    std::uint32_t data_, meta_, meta_size_;
    bool headers_only_;
    std::uint64_t data_area_;
    std::uint32_t data_memory_, meta_memory_;
};

// The receiver's check of a whole fragment in place: its data's header (and payload with full),
// then every metadata segment's.
FragmentCheck check_mixed_fragment(const MessageMix& mix, const std::byte* fragment, std::uint64_t event, std::uint32_t source,
                                   std::uint32_t size, bool full);

} // namespace evb
