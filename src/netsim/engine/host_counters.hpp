// What the fabric simulator (HostAdapters) counts per host: payload its adapter started sending,
// payload and messages that arrived, and the packets' and messages' latencies. In packet mode a
// packet that is not its message's last has no event at its host: it waits here, per host in
// arrival order, and is counted once its time has passed, in batches (counted one by one, each
// waited on a cache miss: the ring's front was written a packet's time ago).
#pragma once
#include "core/latency_histogram.hpp"
#include "core/ring_queue.hpp"
#include "core/time.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace evb::netsim {

struct SimHostStats {
    std::uint64_t tx_payload = 0, rx_payload = 0, rx_messages = 0;
};

class HostCounters {
public:
    static constexpr std::size_t batch = 8; // a host's past arrivals counted this many at a time

    void reset(std::size_t hosts) {
        arriving_.resize(hosts);
        stats_.resize(hosts);
        started_.resize(hosts);
    }
    // A packet of `payload` bytes its adapter starts sending.
    void started(std::uint32_t host, std::uint32_t payload) { started_[host] += payload; }
    // Packet mode: a packet reaches `host` at `at`, later than `now`, after `latency`.
    void arriving(std::uint32_t host, std::int64_t at, std::int64_t latency, std::uint32_t payload, std::int64_t now) {
        RingQueue<Arriving>& a = arriving_[host];
        if (a.size() >= batch) count_arrived(host, now - 1);
        a.push(Arriving{at, latency, payload});
    }
    // A packet with an event at its arrival (now).
    void arrived(std::uint32_t host, std::uint32_t payload, std::int64_t latency) {
        stats_[host].rx_payload += payload;
        packet_latency_.record(Picoseconds(latency));
    }
    void message_arrived(std::uint32_t host, std::int64_t latency) {
        stats_[host].rx_messages++;
        message_latency_.record(Picoseconds(latency));
    }

    // Per host, what arrived by `until`, and what its adapter sent: what it started but
    // `in_flight(host)`, the payload of the packet it is still sending.
    template <class InFlight>
    const std::vector<SimHostStats>& stats(std::int64_t until, InFlight in_flight) const {
        count_arrived(until);
        for (std::uint32_t h = 0; h < stats_.size(); ++h) stats_[h].tx_payload = started_[h] - in_flight(h);
        return stats_;
    }
    const LatencyHistogram& packet_latency(std::int64_t until) const {
        count_arrived(until);
        return packet_latency_;
    }
    const LatencyHistogram& message_latency() const { return message_latency_; }
    // Arrivals kept to be counted: bounded by the packets on host links, and per host at most
    // `batch` past ones.
    std::size_t arriving_entries() const {
        std::size_t n = 0;
        for (const auto& a : arriving_) n += a.size();
        return n;
    }

private:
    struct Arriving {
        std::int64_t at, latency;
        std::uint32_t payload;
    };
    void count_arrived(std::int64_t until) const {
        for (std::uint32_t h = 0; h < arriving_.size(); ++h) count_arrived(h, until);
    }
    void count_arrived(std::uint32_t h, std::int64_t until) const {
        for (RingQueue<Arriving>& a = arriving_[h]; !a.empty() && a.front().at <= until; a.pop()) {
            stats_[h].rx_payload += a.front().payload;
            packet_latency_.record(Picoseconds(a.front().latency));
        }
    }

    // Counting what has arrived is part of reading the counts (const).
    mutable std::vector<RingQueue<Arriving>> arriving_; // per host
    mutable std::vector<SimHostStats> stats_;
    std::vector<std::uint64_t> started_;
    mutable LatencyHistogram packet_latency_;
    LatencyHistogram message_latency_;
};

} // namespace evb::netsim
