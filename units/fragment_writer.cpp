#include "units/fragment_writer.hpp"

#include <algorithm>

namespace evb {

FragmentWriter::FragmentWriter(const UnitConfig& config, std::uint32_t source, std::uint32_t max_size, MemoryPool& pool)
    : config_(config), pool_(pool), source_(source), mix_(config), generator_(source, max_size, mix_.data_memory()),
      meta_generator_(source, std::max(mix_.meta_size(), min_fragment_size), std::max(mix_.meta_memory(), min_fragment_size)),
      pieces_left_() {
    if (pool_.touched() == pool_.blocks()) prefill_up_to(pool_.blocks() - 1);
}

void FragmentWriter::prefill_up_to(std::uint32_t block) {
    for (auto b = static_cast<std::uint32_t>(pieces_left_.size()); b <= block; ++b) {
        generator_.prefill(pool_.block(b));
        for (std::uint32_t p = mix_.data_pieces(); p < mix_.pieces(); ++p)
            meta_generator_.prefill(pool_.block(b) + mix_.piece(p, 0).offset);
        pieces_left_.push_back(0);
        to_own_node_.push_back(false);
    }
}

void FragmentWriter::write(Context& ctx, UnitAddress to, std::uint32_t block, std::uint64_t event, std::uint32_t size, std::uint64_t rkey,
                           std::uint64_t remote_offset, std::uint32_t slot) {
    prefill_up_to(block);
    std::byte* memory = pool_.block(block);
    generator_.stamp(memory, event, size);
    for (std::uint32_t p = mix_.data_pieces(); p < mix_.pieces(); ++p)
        meta_generator_.stamp(memory + mix_.piece(p, size).offset, event, mix_.meta_size(), mix_.tag(p));
    pieces_left_[block] = static_cast<std::uint8_t>(mix_.pieces());
    to_own_node_[block] = config_.same_node(source_, to.index);
    for (std::uint32_t p = 0; p < mix_.pieces(); ++p) {
        Piece piece = mix_.piece(p, size);
        ctx.write(to,
                  {.pool = pool_,
                   .block = block,
                   .block_offset = piece.offset,
                   .length = piece.length,
                   .rkey = rkey,
                   .remote_offset = remote_offset + piece.offset,
                   .imm = WriteImm::encode(slot, p, source_),
                   .cookie = (std::uint64_t{piece.length} << 32) | block});
    }
}

std::optional<std::uint32_t> FragmentWriter::done(Context& ctx, const WriteCompletion& c) {
    auto block = static_cast<std::uint32_t>(c.cookie);
    auto& st = ctx.stats();
    if (c.kind != WriteCompletion::Kind::write_done || block >= pieces_left_.size() || pieces_left_[block] == 0) {
        ++st.errors.unexpected;
        return std::nullopt;
    }
    if (!c.dropped) {
        st.bytes_out += c.cookie >> 32;
        if (to_own_node_[block]) st.bytes_out_local += c.cookie >> 32;
        ++st.writes_out;
    }
    if (--pieces_left_[block] > 0) return std::nullopt;
    if (!c.dropped) ++st.fragments_out;
    return block;
}

} // namespace evb
