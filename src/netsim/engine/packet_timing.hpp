// The fabric simulator's (Links, HostAdapters) packet geometry and times: how an adapter cuts a message
// into MTU packets, what a packet takes on a link of each rate (the times of a full MTU are kept
// per rate, as most packets are full), and the chunks the flit and aggregated modes send a packet
// in (packet mode sends it whole: one chunk).
#pragma once
#include "netsim/engine/ib_params.hpp"
#include "netsim/engine/link_credits.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace evb::netsim {

class PacketTiming {
public:
    // A link rate and what it takes on such a link: a flit, a packet of a full MTU and its last
    // flit, and its flits but the last two.
    struct LinkTimes {
        double gbps = 0;
        std::int64_t flit_ps = 0, mtu_wire_ps = 0, mtu_last_flit_ps = 0, mtu_body_ps = 0;
    };

    // chunk_flits: flits per chunk (flit mode 1, aggregated k); 0: a chunk is the whole packet.
    // The packet geometry is `ib`'s, which must outlive this (the simulator's options).
    PacketTiming(const IbParams& ib, std::uint32_t chunk_flits)
        : ib_(&ib), chunk_flits_(chunk_flits), mtu_wire_(ib.wire_bytes(ib.mtu)), mtu_blocks_(ib.blocks(mtu_wire_)) {
        rates_.emplace_back(); // rate 0: not cabled
    }
    PacketTiming(const IbParams&& ib, std::uint32_t chunk_flits) = delete;

    // The index of a link rate's times, added at its first link. Throws std::invalid_argument for
    // a rate the model cannot step (a flit in no time, a packet over the longest credit ramp) and
    // beyond 255 rates.
    std::uint8_t rate_index(double gbps) {
        for (std::size_t i = 1; i < rates_.size(); ++i)
            if (rates_[i].gbps == gbps) return static_cast<std::uint8_t>(i);
        if (rates_.size() > UINT8_MAX) throw std::invalid_argument("the fabric has links of more than 255 different rates");
        LinkTimes l;
        l.gbps = gbps;
        l.flit_ps = serialisation_ps(flit_bytes(), gbps);
        const Times mtu = packet_times(gbps, mtu_wire_, mtu_blocks_);
        l.mtu_wire_ps = mtu.wire_ps;
        l.mtu_last_flit_ps = mtu.last_flit_ps;
        l.mtu_body_ps = serialisation_ps(std::uint64_t{std::max(mtu_blocks_, 2u) - 2} * flit_bytes(), gbps);
        // Credit ramps step by flits: a flit that takes no time would stall the model.
        if (l.flit_ps <= 0)
            throw std::invalid_argument("a flit of " + std::to_string(flit_bytes()) + " B at " + std::to_string(gbps) +
                                        " Gb/s takes under half a picosecond: the model steps credits by flits");
        if (l.mtu_wire_ps > LinkCredits::max_ramp_ps)
            throw std::invalid_argument("a packet of " + std::to_string(mtu_wire_) + " B at " + std::to_string(gbps) +
                                        " Gb/s takes over 1 ms: the model returns a packet's credits within 1 ms");
        rates_.push_back(l);
        return static_cast<std::uint8_t>(rates_.size() - 1);
    }
    const LinkTimes& times(std::uint8_t rate) const { return rates_[rate]; }
    // Every rate so far, the first (index 0) that of no link.
    const std::vector<LinkTimes>& rates() const { return rates_; }

    std::uint32_t flit_bytes() const { return ib_->flit_bytes; }
    std::uint32_t mtu_wire() const { return mtu_wire_; } // bytes on the wire of a full-MTU packet
    std::uint32_t mtu_blocks() const { return mtu_blocks_; } // and its blocks: the largest need of an adapter's flow

    // The payload and the blocks of the next packet an adapter cuts from a message with `left`
    // bytes not yet cut.
    std::uint32_t next_payload(std::uint64_t left) const { return static_cast<std::uint32_t>(std::min<std::uint64_t>(ib_->mtu, left)); }
    std::uint32_t next_packet_blocks(std::uint64_t left) const { return ib_->blocks(ib_->wire_bytes(next_payload(left))); }

    // A packet of `wire` bytes in `blocks` flits on link `l`: its time on the wire, and its last
    // flit's (a short last flit takes less than a full one).
    struct Times {
        std::int64_t wire_ps, last_flit_ps;
    };
    Times packet_times(const LinkTimes& l, std::uint32_t wire, std::uint32_t blocks) const {
        return wire == mtu_wire_ ? Times{l.mtu_wire_ps, l.mtu_last_flit_ps} : packet_times(l.gbps, wire, blocks);
    }

    // The chunks of a packet of `blocks` flits and `wire` bytes: how many, the flits of chunk c,
    // its bytes, and its start and end on link `l` from the packet's start.
    std::uint32_t chunk_flits(std::uint32_t blocks) const { return chunk_flits_ ? chunk_flits_ : blocks; }
    std::uint32_t chunks(std::uint32_t blocks) const { return (blocks + chunk_flits(blocks) - 1) / chunk_flits(blocks); }
    std::uint32_t chunk_blocks(std::uint32_t blocks, std::uint32_t c) const {
        return std::min(chunk_flits(blocks), blocks - c * chunk_flits(blocks));
    }
    std::uint64_t chunk_bytes(std::uint32_t wire, std::uint32_t blocks, std::uint32_t c) const {
        return chunk_end(wire, blocks, c) - chunk_begin(blocks, c);
    }
    std::int64_t chunk_start_ps(const LinkTimes& l, std::uint32_t blocks, std::uint32_t c) const {
        return serialisation_ps(chunk_begin(blocks, c), l.gbps);
    }
    std::int64_t chunk_end_ps(const LinkTimes& l, std::uint32_t wire, std::uint32_t blocks, std::uint32_t c) const {
        return serialisation_ps(chunk_end(wire, blocks, c), l.gbps);
    }

private:
    Times packet_times(double gbps, std::uint32_t wire, std::uint32_t blocks) const {
        const std::int64_t all = serialisation_ps(wire, gbps);
        return {all, all - serialisation_ps(std::uint64_t{blocks - 1} * flit_bytes(), gbps)};
    }
    std::uint64_t chunk_begin(std::uint32_t blocks, std::uint32_t c) const { return std::uint64_t{c} * chunk_flits(blocks) * flit_bytes(); }
    std::uint64_t chunk_end(std::uint32_t wire, std::uint32_t blocks, std::uint32_t c) const {
        return std::min<std::uint64_t>(wire, std::uint64_t{c + 1} * chunk_flits(blocks) * flit_bytes());
    }

    const IbParams* ib_;
    std::uint32_t chunk_flits_, mtu_wire_, mtu_blocks_;
    std::vector<LinkTimes> rates_;
};

} // namespace evb::netsim
