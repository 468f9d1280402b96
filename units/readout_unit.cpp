#include "readout_unit.hpp"

#include <algorithm>

namespace evb {

ReadoutUnit::ReadoutUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& pool)
    : setup_(setup), index_(index), pool_(pool), mix_(setup.config), generator_(index, setup.sizer.max_size(), mix_.data_memory()),
      meta_generator_(index, std::max(mix_.meta_size(), min_fragment_size), std::max(mix_.meta_memory(), min_fragment_size)),
      slot_stride_(setup.config.fragment_stride()), pieces_left_(pool.blocks(), 0),
      waiting_(std::size_t{setup.config.nodes} * setup.config.credits) {
    for (std::uint32_t b = 0; b < pool_.blocks(); ++b) {
        generator_.prefill(pool_.block(b));
        for (std::uint32_t p = mix_.data_pieces(); p < mix_.pieces(); ++p)
            meta_generator_.prefill(pool_.block(b) + mix_.piece(p, 0).offset);
    }
    if (setup_.config.protocol == Protocol::push) {
        push_pending_.assign(setup_.config.nodes, RingQueue<Job>(setup_.config.credits));
        push_order_.resize(setup_.config.nodes);
        setup_.schedule.order(index_, push_round_, push_order_);
    }
}

void ReadoutUnit::on_start(Context&) {}

void ReadoutUnit::on_message(Context& ctx, const Message& msg) {
    if (msg.type == MessageType::request) {
        Job job{msg.event, msg.from_index, msg.slot, msg.rkey, msg.offset};
        if (auto block = pool_.acquire())
            serve(ctx, job, *block);
        else
            waiting_.push(job);
    } else if (msg.type == MessageType::push_assign && msg.peer_index < push_pending_.size()) {
        std::uint64_t offset = msg.offset + std::uint64_t{index_} * slot_stride_;
        push_pending_[msg.peer_index].push({msg.event, msg.peer_index, msg.slot, msg.rkey, offset});
        pump(ctx);
    } else {
        ++ctx.stats().errors.unexpected;
    }
}

void ReadoutUnit::serve(Context& ctx, const Job& job, std::uint32_t block) {
    std::uint32_t size = setup_.sizer.size(job.event, index_);
    std::byte* memory = pool_.block(block);
    generator_.stamp(memory, job.event, size);
    for (std::uint32_t p = mix_.data_pieces(); p < mix_.pieces(); ++p)
        meta_generator_.stamp(memory + mix_.piece(p, size).offset, job.event, mix_.meta_size(), mix_.tag(p));
    ++fragments_outstanding_;
    pieces_left_[block] = static_cast<std::uint8_t>(mix_.pieces());
    for (std::uint32_t p = 0; p < mix_.pieces(); ++p) {
        Piece piece = mix_.piece(p, size);
        ctx.write({Role::builder, job.bu}, pool_, block, piece.offset, piece.length, job.rkey, job.offset + piece.offset,
                  WriteImm::encode(job.slot, p, index_), (std::uint64_t{piece.length} << 32) | block);
    }
}

void ReadoutUnit::on_completion(Context& ctx, const WriteCompletion& c) {
    auto block = static_cast<std::uint32_t>(c.cookie);
    if (c.kind != WriteCompletion::Kind::write_done || block >= pieces_left_.size() || pieces_left_[block] == 0) {
        ++ctx.stats().errors.unexpected;
        return;
    }
    auto& st = ctx.stats();
    st.bytes_out += c.cookie >> 32;
    ++st.writes_out;
    if (--pieces_left_[block] > 0) return;
    ++st.fragments_out;
    --fragments_outstanding_;
    pool_.release(block);
    if (!waiting_.empty()) {
        Job job = waiting_.front();
        waiting_.pop();
        serve(ctx, job, *pool_.acquire());
    }
    if (!push_pending_.empty()) pump(ctx);
}

// PUSH: the RU walks the BUs in its schedule order and sends the oldest pending fragment for the
// BU under the cursor, keeping at most `parallel` fragments in flight.
void ReadoutUnit::pump(Context& ctx) {
    Job job;
    while (fragments_outstanding_ < setup_.config.parallel && next_push_job(job)) {
        auto block = pool_.acquire();
        if (!block) {
            waiting_.push(job);
            return;
        }
        serve(ctx, job, *block);
    }
}

bool ReadoutUnit::next_push_job(Job& job) {
    auto n = static_cast<std::uint32_t>(push_pending_.size());
    // The cursor may wrap into a new round's order mid-scan: 2N steps always include one whole
    // permutation, so no BU with pending work is skipped.
    for (std::uint32_t tried = 0; tried < 2 * n; ++tried) {
        auto& queue = push_pending_[push_order_[push_cursor_]];
        if (++push_cursor_ == n) {
            push_cursor_ = 0;
            setup_.schedule.order(index_, ++push_round_, push_order_);
        }
        if (!queue.empty()) {
            job = queue.front();
            queue.pop();
            return true;
        }
    }
    return false;
}

void ReadoutUnit::on_stop(Context& ctx, bool) {
    // In eq. 3.1's terms: whole fragments, even where only their headers sit in memory.
    ctx.stats().peak_ru_bytes = std::uint64_t{pool_.peak_in_use()} * setup_.config.wire_fragment_stride();
}

} // namespace evb
