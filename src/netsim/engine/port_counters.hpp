// What the fabric simulator (Links) counts per port, as a switch's performance counters do:
// bytes, packets and flit blocks sent, and the time an output had a packet to send but no
// credits (PortXmitWait), with the bit per port that says it waits now (the arbitration reads it
// to wake a waiting port when credits come back).
#pragma once
#include "core/huge_page_allocator.hpp"

#include <cstddef>
#include <cstdint>

namespace evb::netsim {

class PortCounters {
public:
    struct Sent {
        std::uint64_t tx_bytes = 0, tx_packets = 0, tx_blocks = 0;
    };

    void reset(std::size_t ports) {
        sent_.assign(ports, Sent{});
        waiting_.assign((ports + 63) / 64, 0);
        xmit_wait_ps_.assign(ports, 0);
        wait_since_.assign(ports, 0);
    }
    Sent& sent(std::size_t port) { return sent_[port]; }
    const Sent& sent(std::size_t port) const { return sent_[port]; }

    // Whether output `out` is idle with requesters, waiting for credits.
    bool is_waiting(std::size_t out) const { return waiting_[out / 64] >> (out % 64) & 1; }
    void start_waiting(std::size_t out, std::int64_t now) {
        if (is_waiting(out)) return;
        wait_since_[out] = now;
        waiting_[out / 64] |= std::uint64_t{1} << (out % 64);
    }
    void stop_waiting(std::size_t out, std::int64_t now) {
        if (!is_waiting(out)) return;
        xmit_wait_ps_[out] += now - wait_since_[out];
        waiting_[out / 64] &= ~(std::uint64_t{1} << (out % 64));
    }
    // At the end of a run: the waits still open count up to now, and go on from there.
    void close_waits(std::int64_t now) {
        for (std::size_t out = 0; out < xmit_wait_ps_.size(); ++out)
            if (is_waiting(out)) {
                xmit_wait_ps_[out] += now - wait_since_[out];
                wait_since_[out] = now;
            }
    }
    std::int64_t xmit_wait_ps(std::size_t port) const { return xmit_wait_ps_[port]; }

private:
    HugePageVector<Sent> sent_; // per port
    HugePageVector<std::uint64_t> waiting_; // bit per port: idle with requesters, waiting for credits
    HugePageVector<std::int64_t> xmit_wait_ps_; // per port: time with a packet ready but no credits
    HugePageVector<std::int64_t> wait_since_; // per port: since when, while its bit is set
};

} // namespace evb::netsim
