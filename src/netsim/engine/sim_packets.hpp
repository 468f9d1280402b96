// The packets in flight in the simulated fabric: one cache line each, as a packet is touched at
// every hop, far apart in time; what only flit and aggregated modes (chunks arrived per hop) or
// slower links (more paces) need lives beside. Freed packets are reused.
#pragma once
#include "core/huge_page_allocator.hpp"
#include "netsim/engine/fabric_part.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace evb::netsim {

class SimPackets {
public:
    static constexpr std::uint32_t max_hops = 16;
    static constexpr std::uint32_t max_paces = 4;

    // A pace: flits come in no earlier than `head` + the serialisation of what is before them at gbps.
    struct Pace {
        std::int64_t head;
        double gbps;
    };
    // Creation time and message stay in the line too: in an array beside, they were a second miss
    // per hop.
    struct alignas(64) Packet {
        std::uint32_t message, dst_host, dst_lid, wire, payload, blocks, chunks;
        std::uint8_t vl, pace_count;
        bool last_of_message; // packet mode: only it has an event at delivery
        std::uint8_t hop; // the link it came in on at the switch that queues it
        std::int64_t created;
        // Packet mode, at the input of the hop it crosses next: when its last flit is wholly in,
        // and when its other flits are: flit i at the latest of head + serialisation of 64 i B
        // at gbps over its paces (one per slower link crossed; see Links::packet_done).
        std::int64_t last_in;
        Pace pace; // the first; the others in extra_paces_
    };
    static_assert(sizeof(Packet) == 64, "a packet spans more cache lines than planned");

    Packet& operator[](std::uint32_t pk) { return packets_[pk]; }
    const Packet& operator[](std::uint32_t pk) const { return packets_[pk]; }
    Pace& pace(std::uint32_t pk, std::uint32_t k) {
        return k == 0 ? packets_[pk].pace : extra_paces_[std::size_t{pk} * (max_paces - 1) + k - 1];
    }
    // Flit and aggregated modes: per hop, the chunks of the packet that arrived there.
    std::uint16_t* arrived(std::uint32_t pk) { return &arrived_[std::size_t{pk} * max_hops]; }

    template <Granularity G>
    std::uint32_t alloc() {
        ++live_;
        if (!free_.empty()) {
            const std::uint32_t i = free_.back();
            free_.pop_back();
            return i;
        }
        packets_.emplace_back();
        extra_paces_.resize(packets_.size() * (max_paces - 1));
        if constexpr (G == Granularity::chunks) arrived_.resize(packets_.size() * max_hops);
        return static_cast<std::uint32_t>(packets_.size() - 1);
    }
    void release(std::uint32_t pk) {
        free_.push_back(pk);
        --live_;
    }
    std::uint64_t live() const { return live_; }

private:
    HugePageVector<Packet> packets_;
    HugePageVector<Pace> extra_paces_; // per packet: max_paces - 1
    std::vector<std::uint16_t> arrived_; // per packet and hop (flit, aggregated modes)
    std::vector<std::uint32_t> free_;
    std::uint64_t live_ = 0;
};

} // namespace evb::netsim
