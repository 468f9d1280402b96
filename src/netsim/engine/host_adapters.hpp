// The host adapters of the simulated fabric: each takes the messages its host posts, after the
// host latency, into a flow per destination and VL, and cuts the flows' head messages into MTU
// packets round robin when its link's credits cover the next one (AdapterFlows); as a sink it
// takes every flit as it comes, and hands a message to its host with its last byte.
#pragma once
#include "core/index_pool.hpp"
#include "core/time.hpp"
#include "netsim/engine/adapter_flows.hpp"
#include "netsim/engine/fabric_element.hpp"
#include "netsim/engine/fabric_part.hpp"
#include "netsim/engine/host_counters.hpp"
#include "netsim/engine/links.hpp"
#include "netsim/engine/part_mail.hpp"
#include "netsim/engine/sim_packets.hpp"
#include "netsim/fabric/topology.hpp"

#include <cstdint>
#include <vector>

namespace evb::netsim {

struct SimMessage {
    std::uint32_t src = 0, dst = 0; // host indices (rank order of Topology::hosts())
    std::uint64_t bytes = 0, tag = 0;
    Picoseconds posted{}, delivered{};
};

class HostAdapters : public FabricElement<HostAdapters> {
public:
    static constexpr std::uint32_t none = SimPart::none;

    // Host latencies drawn from a stream of `seed` per host.
    explicit HostAdapters(std::uint64_t seed);
    // The hosts of `topology` in its order, after links.build; throws std::invalid_argument for
    // a host without a cable.
    void build(const Topology& topology);
    std::uint32_t count() const { return static_cast<std::uint32_t>(host_port_.size()); }
    std::uint32_t port(std::uint32_t host) const { return host_port_[host]; }

    // Queue `bytes` from host src to host dst now; injected after the host latency (a
    // message_ready event). Throws std::invalid_argument for hosts out of range, src == dst or 0 B.
    void post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag);
    // A message_ready event: message `m` joins its flow; a new flow asks the adapter's output.
    void message_ready(std::uint32_t m);

    // Adapter output `out`'s flows on `vl` in its round robin order: cuts and sends the next
    // packet of the first whose need the credits cover and returns true; else keeps the smallest
    // need in `min_need`.
    template <Granularity G>
    bool offer(std::uint32_t out, std::uint32_t vl, std::uint32_t& min_need);

    // Packet mode: packet `pk` reaches its host at `at` (its last flit in); only a message's
    // last packet has an event there (deliver), the others are counted as their time passes.
    void deliver_at(std::uint32_t pk, std::int64_t at);
    // Flit and aggregated modes: chunk `chunk` of packet `pk` is wholly in at host port `in`;
    // whether it was the packet's last (the packet is then delivered).
    bool sink_chunk(std::uint32_t in, std::uint32_t pk, std::uint32_t chunk);
    // Packet `pk` arrived whole now (a deliver event, or its last chunk): the message it completes,
    // if it does (valid until the next call), which the caller hands to the host.
    template <Granularity G>
    const SimMessage* deliver(std::uint32_t pk);

    // The time an ACK takes from host `from` back to host `to`, unloaded: per link crossed, its
    // latency and a flit's time, and per switch its latency. At least a link's latency, so an ACK
    // is known at its sender no earlier than the end of the window it left in.
    std::int64_t ack_ps(std::uint32_t from, std::uint32_t to) const;

    // What the hosts counted, as of `until`; the payload host h's adapter is still sending.
    const std::vector<SimHostStats>& stats(std::int64_t until) const {
        return counters_.stats(until, [this](std::uint32_t h) { return in_flight_payload(h); });
    }
    const LatencyHistogram& packet_latency(std::int64_t until) const { return counters_.packet_latency(until); }
    const LatencyHistogram& message_latency() const { return counters_.message_latency(); }
    std::size_t arriving_entries() const { return counters_.arriving_entries(); }
    std::uint64_t messages_in_flight() const { return live_messages_; }

    // A message's record: at its source host's part until its last packet crosses to another
    // part of the fabric, which takes the record over (FabricSim with parts).
    using Message = MessageRecord;
    // The record of message `m`, no longer kept here; and a record kept here from now on, its index.
    Message hand_over(std::uint32_t m) {
        --live_messages_;
        return messages_.take(m);
    }
    std::uint32_t adopt(const Message& m) {
        ++live_messages_;
        return messages_.add(m);
    }

private:
    // After a grant on `vl`: adapter output `out`'s credit state on the VL it visits first next,
    // and the flow its round robin visits first there, asked from memory now.
    void prefetch_next_grant(std::uint32_t out, std::uint32_t vl) {
        const std::uint32_t next_vl = links().prefetch_next_vl(out, vl);
        if (next_vl == Links::none) return;
        __builtin_prefetch(&links().output(out, next_vl));
        const AdapterFlows& fl = flows(links().port(out).host, next_vl);
        if (!fl.empty()) __builtin_prefetch(&fl.first_to_visit());
    }
    template <Granularity G>
    void grant_flow(std::uint32_t out, std::uint32_t vl, std::size_t flow, std::uint32_t need);
    // The payload of the packet host h's adapter is still sending: counted as it started (see
    // grant_flow), not yet sent.
    std::uint32_t in_flight_payload(std::uint32_t h) const;
    AdapterFlows& flows(std::uint32_t host, std::uint32_t vl) { return flows_[std::size_t{host} * part().vls + vl]; }
    // With checks: an adapter's count of short flows on `vl` is what its flows hold.
    void check_short_flows(std::uint32_t port, std::uint32_t vl);

    std::vector<std::uint32_t> host_port_; // per host: its port
    std::vector<std::uint32_t> host_lid_;
    std::vector<AdapterFlows> flows_; // per (host, VL): destinations with messages
    IndexPool<Message> messages_;
    HostCounters counters_;
    std::uint64_t seed_, live_messages_ = 0;
    std::vector<std::uint64_t> draws_; // per host: host latencies drawn so far
    SimMessage done_; // what deliver returns
};

} // namespace evb::netsim
