// The sending side of a fragment, shared by the RU and the micro-benchmarks' sender: fills a
// pool's blocks with the data and metadata patterns once, stamps a fragment (data header and
// each metadata segment's header), posts its writes of the message mix into a peer's slot, and
// counts their completions, handing the block back when the last one is done.
#pragma once
#include "units/context.hpp"
#include "units/fragment_format.hpp"
#include "core/memory_pool.hpp"
#include "units/message_mix.hpp"
#include "units/write_completion.hpp"

#include <optional>
#include <vector>

namespace evb {

class FragmentWriter {
public:
    FragmentWriter(const UnitConfig& config, std::uint32_t source, std::uint32_t max_size, MemoryPool& pool);
    // Stamps `event`'s fragment of `size` bytes into `block` and writes every piece to `to` at
    // `remote_offset` (the fragment's place there) with the immediate naming slot and source.
    void write(Context& ctx, UnitAddress to, std::uint32_t block, std::uint64_t event, std::uint32_t size, std::uint64_t rkey,
               std::uint64_t remote_offset, std::uint32_t slot);
    // A write_done of ours: counts its bytes and write; the block once its fragment is all done
    // (then the fragment is counted too). Nothing for a completion it does not know (counted
    // unexpected).
    std::optional<std::uint32_t> done(Context& ctx, const WriteCompletion& c);

private:
    const UnitConfig& config_;
    MemoryPool& pool_;
    std::uint32_t source_;
    MessageMix mix_;
    FragmentGenerator generator_; // the fragment's data
    FragmentGenerator meta_generator_; // its metadata segments
    // Fills blocks up to `block` with the patterns if they are not yet: all at once for a pool
    // touched from the start, else as they are first loaned (in index order).
    void prefill_up_to(std::uint32_t block);
    std::vector<std::uint8_t> pieces_left_; // per pool block prefilled so far
    std::vector<bool> to_own_node_; // per block: its fragment went to this node's own BU
};

} // namespace evb
