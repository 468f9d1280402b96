// Link credits of the fabric simulator (Links): per output and VL, the credits it holds for
// its peer's input buffer, and the credits on their way back. A packet that leaves an input
// buffer returns its blocks to the sending output as a ramp (block i at base + min((i + 1) step,
// total), or all at base); the output may grant a packet once its credits cover the packet's
// blocks. Indexed by SimPart::queue_index; inline, as it runs per packet and hop.
#pragma once
#include "core/huge_page_allocator.hpp"
#include "core/inline_ring.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace evb::netsim {

class LinkCredits {
public:
    // A ramp spans one packet on one link (PacketTiming refuses links where that could pass 1 ms).
    struct Ramp {
        std::int64_t base;
        std::int32_t total, step;
        std::uint32_t blocks;
    };
    static constexpr std::int64_t max_ramp_ps = 1'000'000'000;
    static constexpr std::size_t ramps_inside = 4;
    // An output's state per VL: its credits (the counter as of the last fold, and the ramps coming
    // back), and beside them, in the same two cache lines, its arbitration's round robin, which
    // reads them at every grant. The ramps are folded as new ones come, so a link holds the few
    // of the packets its peer's buffer is sending on: in packet mode they fit inside (flit mode,
    // a ramp per flit, spills to the heap). In a ring of their own they would be a cache miss per
    // credit return.
    struct alignas(64) OutputVl {
        std::int32_t credits = 0; // blocks: a buffer holds at most 2^24 (IbParams::validate)
        std::uint32_t last_granted = UINT32_MAX; // a switch output: the input granted last (an adapter's round robin: AdapterFlows)
        std::uint32_t short_flows = 0; // an adapter: its flows on this VL whose next packet is below a full MTU
        // While the port waits: its requesters' smallest need on this VL (an adapter: 0 from a
        // change of its flows to the next scan).
        std::uint32_t least_need = 0;
        InlineRing<Ramp, ramps_inside> ramps;
    };

    // Every output full: `capacity` blocks of its peer's buffer.
    void reset(std::size_t outputs, std::int64_t capacity) {
        outputs_.resize(outputs);
        for (auto& o : outputs_) o.credits = static_cast<std::int32_t>(capacity);
    }
    std::size_t size() const { return outputs_.size(); }
    OutputVl& operator[](std::size_t i) { return outputs_[i]; }
    const OutputVl& operator[](std::size_t i) const { return outputs_[i]; }

    // Credits back whole by `t` (ramps complete by then folded into the counter).
    std::int64_t folded(std::size_t i, std::int64_t t) {
        OutputVl& o = outputs_[i];
        for (; !o.ramps.empty() && o.ramps.front().base + o.ramps.front().total <= t; o.ramps.pop())
            o.credits += static_cast<std::int32_t>(o.ramps.front().blocks);
        return o.credits;
    }
    // The blocks of ramps still in progress at `t`.
    std::int64_t partial(std::size_t i, std::int64_t t) const {
        const OutputVl& o = outputs_[i];
        std::int64_t partial = 0;
        for (std::size_t k = 0; k < o.ramps.size(); ++k) {
            const Ramp& r = o.ramps.at(k);
            if (t < r.base + r.step) break;
            partial += std::min<std::int64_t>(r.blocks - 1, (t - r.base) / r.step);
        }
        return partial;
    }
    // When the credits reach `need`, not before now + 1; -1 when they wait for credits not yet on
    // their way (their ramp will wake the port).
    std::int64_t time_reached(std::size_t i, std::int64_t need, std::int64_t now) const {
        const OutputVl& o = outputs_[i];
        std::int64_t have = o.credits;
        for (std::size_t k = 0; k < o.ramps.size(); ++k) {
            const Ramp& r = o.ramps.at(k);
            if (have + r.blocks >= need) {
                std::int64_t missing = need - have; // 1..blocks
                return std::max(now + 1, r.base + (r.total == 0 ? 0 : std::min<std::int64_t>(missing * r.step, r.total)));
            }
            have += r.blocks;
        }
        return -1;
    }
    // Credits on their way: a ramp starting after now.
    void give_back(std::size_t i, const Ramp& ramp, std::int64_t now) {
        OutputVl& o = outputs_[i];
        if (o.ramps.size() == ramps_inside) folded(i, now); // room inside: ramps complete by now go to the counter
        o.ramps.emplace(ramp.base, ramp.total, ramp.step, ramp.blocks);
    }
    // After a Cover of output i at this instant, which folded the complete ramps: blocks of a
    // ramp still in progress but already returned move into the counter, then `blocks` leave it.
    // The counter after (below zero: the simulator lost track).
    std::int64_t take(std::size_t i, std::uint32_t blocks, std::int64_t now) {
        OutputVl& o = outputs_[i];
        while (o.credits < std::int64_t{blocks} && !o.ramps.empty()) {
            Ramp& r = o.ramps.front();
            if (now < r.base + r.step) break;
            std::int64_t done = std::min<std::int64_t>(r.blocks - 1, (now - r.base) / r.step);
            if (done <= 0) break;
            o.credits += static_cast<std::int32_t>(done);
            r.blocks -= static_cast<std::uint32_t>(done);
            r.base += done * r.step;
            r.total -= static_cast<std::int32_t>(done * r.step);
        }
        o.credits -= static_cast<std::int32_t>(blocks);
        return o.credits;
    }
    // Credits held and on their way: the buffer's capacity when nothing is in flight.
    std::int64_t held(std::size_t i) const {
        const OutputVl& o = outputs_[i];
        std::int64_t c = o.credits;
        for (std::size_t k = 0; k < o.ramps.size(); ++k) c += o.ramps.at(k).blocks;
        return c;
    }
    std::size_t ramp_entries() const {
        std::size_t n = 0;
        for (const auto& o : outputs_) n += o.ramps.size();
        return n;
    }

    // Whether the credits of output i now cover a need: the folded counter first, the ramps in
    // progress (a division each) only when it falls short.
    class Cover {
    public:
        Cover(LinkCredits& credits, std::size_t i, std::int64_t now) : credits_(credits), i_(i), now_(now), have_(credits.folded(i, now)) {}
        bool operator()(std::int64_t need) {
            if (need > have_ && !exact_) {
                have_ += credits_.partial(i_, now_);
                exact_ = true;
            }
            return need <= have_;
        }

    private:
        LinkCredits& credits_;
        std::size_t i_;
        std::int64_t now_, have_;
        bool exact_ = false;
    };

private:
    HugePageVector<OutputVl> outputs_; // per (port, VL)
};

} // namespace evb::netsim
