// What the elements of the simulated fabric (the host adapters, the switches, the links) share
// while one thread runs them: the model's constants, the simulated time, the event queue and
// its kinds of event, and the layout of per (port, VL) state. The elements talk only through
// these events and through each other's functions; each keeps its own state.
#pragma once
#include "netsim/engine/event_queue.hpp"
#include "netsim/engine/sim_model.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace evb::netsim {

// The granularity is chosen once per run: the paths that differ between packet mode (a packet
// sent whole) and flit and aggregated modes (a packet sent in chunks) are compiled for each.
enum class Granularity : bool { chunks, packets };

// The kinds of event (SimEvent::kind). ack: a delivered message's ACK reaches its sender.
namespace event {
enum Kind : std::uint8_t { arrive, tx_done, wake, head_ready, message_ready, deliver, timer_fired, ack };
}

struct SimPart {
    static constexpr std::uint32_t none = UINT32_MAX;

    // `options` are checked (sim_model.hpp) and outlive the part.
    explicit SimPart(const SimOptions& o)
        : options(o), vls(o.ib.vls), link_ps(o.ib.link_latency.count()), credit_ps(o.ib.credit_latency.count()),
          switch_ps(o.ib.switch_latency.count()), capacity(o.ib.buffer_blocks()), checks(o.checks),
          window_ps(std::min(link_ps, credit_ps)) {}

    const SimOptions& options;
    const std::uint32_t vls;
    const std::int64_t link_ps, credit_ps, switch_ps, capacity;
    const bool checks; // options.checks, read on the hot paths without going through the options
    // Time runs in windows of this many picoseconds, on a fixed grid from 0 (none when 0): what
    // crosses a link between switches in one window is known at the other end no earlier than its
    // end (a packet enters a link's latency later; credits count a credit latency later), so the
    // two ends may run apart within a window. Credits between switches are given at the end of
    // the window they were returned in, in every run, whatever parts the fabric is cut into.
    const std::int64_t window_ps;
    std::uint32_t port_count = 0; // all ports of the fabric: the stride between VLs in per (port, VL) state

    std::int64_t now = 0;
    EventQueue queue;
    std::uint64_t events = 0;
    bool running = false;

    // Per (port, VL) state is laid out VL by VL, so the VLs that carry traffic (often one of
    // four) are dense in memory. A queue's port and VL are a division apart: the paths run per
    // packet know the VL (input_of), the others divide.
    std::uint32_t queue_index(std::uint32_t port, std::uint32_t vl) const { return vl * port_count + port; }
    std::uint32_t input_of(std::uint32_t q, std::uint32_t vl) const { return q - vl * port_count; }
    std::uint32_t port_of(std::uint32_t q) const { return q % port_count; }
    std::uint32_t vl_of(std::uint32_t q) const { return q / port_count; }

    // The arrivals counted as of now: a callback at this instant runs before packets arriving at
    // it (their events, scheduled later, would have come after); after a run, everything up to
    // its end has arrived.
    std::int64_t arrived_by() const { return running ? now - 1 : now; }

    [[noreturn]] void check_failed(const std::string& what) const {
        throw SimCheckError("simulator invariant broken at " + std::to_string(now) + " ps: " + what);
    }
};

} // namespace evb::netsim
