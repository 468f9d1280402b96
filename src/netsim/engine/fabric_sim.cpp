#include "netsim/engine/fabric_sim.hpp"

#include "core/machine_info.hpp"
#include "core/quantity.hpp"

#include <algorithm>
#include <utility>

namespace evb::netsim {

FabricSim::FabricSim(const Topology& topology, const Routing& routing, SimOptions options)
    : topology_(topology), options_(checked(std::move(options))), fabric_(options_) {
    const auto& devices = topology.devices();
    std::vector<std::uint32_t> host_index(devices.size(), SimPart::none);
    for (std::uint32_t h = 0; h < topology.hosts().size(); ++h) host_index[topology.hosts()[h]] = h;
    links().build(topology, host_index);
    adapters().build(topology);
    switches().build(topology, routing);
}

// ---- running ----------------------------------------------------------------------------------

void FabricSim::set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag) {
    part().queue.push(std::max(part().now, at.count()), event::timer_fired, timers_.add(Timer{host, tag}));
}

void FabricSim::run(SimApp& app, Picoseconds until) {
    app_ = &app;
    part().running = true;
    if (!started_) app.start(*this);
    started_ = true;
    if (options_.mode == SimMode::packet)
        run_events<Granularity::packets>(until.count());
    else
        run_events<Granularity::chunks>(until.count());
    part().running = false;
    if (!idle()) part().now = until.count();
    links().close_waits();
    app_ = nullptr;
}

template <Granularity G>
void FabricSim::run_events(std::int64_t until) {
    SimPart& p = part();
    for (;;) {
        // Credits returned between switches in the window reach their outputs at its end, before
        // any event of a later window (an event at or after `until` stays, and so do they).
        if (links().credits_pending() && (p.queue.empty() || p.queue.top().time >= p.window_end)) {
            if (p.window_end > until) return;
            links().give_pending_credits();
        }
        SimEvent e;
        if (!p.queue.pop_due(until, e)) return;
        if (e.time >= p.window_end && p.window_ps > 0) p.window_end = (e.time / p.window_ps + 1) * p.window_ps;
        p.now = e.time;
        ++p.events;
        dispatch<G>(e);
        // Outputs decide once everything that happens at this instant has happened, in port
        // order: the outcome of a tie never depends on the order events were scheduled in.
        if (links().has_dirty_ports() && !p.queue.more_now()) links().arbitrate_dirty_ports<G>();
    }
}

template <Granularity G>
void FabricSim::dispatch(const SimEvent& e) {
    switch (e.kind) {
    case event::arrive: { // flit and aggregated modes: a chunk is wholly in
        const Links::Arrival x = links().take_arrival(e.a);
        if (links().port(x.in).host == SimPart::none)
            switches().chunk_arrived(x.in, x.packet, x.hop, x.chunk);
        else if (adapters().sink_chunk(x.in, x.packet, x.chunk))
            deliver<Granularity::chunks>(x.packet);
        break;
    }
    case event::enter: {
        const Links::Arrival x = links().take_arrival(e.a);
        switches().enter(x.in, x.packet, x.hop);
        break;
    }
    case event::tx_done: links().on_tx_done<G>(e.a); break;
    case event::wake: links().on_wake(e.a, e.time); break;
    case event::head_ready: switches().head_ready(e.a); break;
    case event::message_ready: adapters().message_ready(e.a); break;
    case event::deliver: deliver<G>(e.a); break;
    case event::ack: {
        const SimMessage m = acks_.take(e.a);
        app_->acknowledged(*this, m);
        break;
    }
    case event::timer_fired: {
        const Timer t = timers_.take(e.a);
        app_->timer(*this, t.host, t.tag);
        break;
    }
    }
}

template <Granularity G>
void FabricSim::deliver(std::uint32_t pk) {
    const SimMessage* done = adapters().deliver<G>(pk);
    if (!done) return;
    const SimMessage m = *done;
    if (app_->wants_acks()) part().queue.push(part().now + adapters().ack_ps(m.dst, m.src), event::ack, acks_.add(m));
    app_->delivered(*this, m);
}

// ---- what it counted --------------------------------------------------------------------------

void FabricSim::verify_quiescent() const {
    if (adapters().messages_in_flight() || packets().live())
        part().check_failed(std::to_string(adapters().messages_in_flight()) + " messages and " + std::to_string(packets().live()) +
                            " packets still in flight");
    links().verify_credits();
}

std::vector<SimPortStats> FabricSim::port_stats() const {
    std::vector<SimPortStats> out;
    for (std::uint32_t i = 0; i < links().port_count(); ++i) {
        const Links::Port& p = links().port(i);
        const PortCounters::Sent c = links().sent_counters(i);
        if (p.peer != SimPart::none)
            out.push_back(SimPortStats{p.device, p.local, c.tx_bytes, c.tx_packets, c.tx_blocks, links().xmit_wait_ps(i)});
    }
    return out;
}

double FabricSim::fastest_host_link_gbps() const {
    double fastest = 0;
    for (std::uint32_t h = 0; h < hosts(); ++h) fastest = std::max(fastest, host_link_gbps(h));
    return fastest;
}

std::uint64_t FabricSim::flit_hops() const {
    std::uint64_t n = 0;
    for (std::uint32_t i = 0; i < links().port_count(); ++i) n += links().sent_counters(i).tx_blocks;
    return n;
}

std::uint64_t routing_table_bytes(const Topology& topology) {
    return 2 * std::uint64_t{topology.switches().size()} * (topology.max_lid() + 1);
}

std::uint64_t simulator_bytes(const Topology& topology) {
    std::uint64_t ports = 0;
    for (const auto& d : topology.devices()) ports += d.ports.size();
    return routing_table_bytes(topology) + 1024 * ports;
}

void limit_to_simulator(FabricOptions& options, std::uint64_t memory, HostState state) {
    const std::uint64_t available = memory ? memory : available_memory_bytes();
    options.check_size = [available, given = memory != 0, state](const Topology& topology) {
        const std::uint64_t hosts = topology.hosts().size();
        const std::uint64_t units = state.fixed + state.per_host * hosts + state.per_pair * hosts * hosts;
        const std::uint64_t need = simulator_bytes(topology) + units;
        if (need <= available) return;
        std::string parts = "the simulator's tables " + format_size_about(simulator_bytes(topology)) +
            ", of which the routing tables (2 B per switch and LID) " + format_size_about(routing_table_bytes(topology));
        if (!state.what.empty()) parts += "; " + state.what + " " + format_size_about(units);
        throw std::invalid_argument("simulating " + std::to_string(hosts) + " hosts and " + std::to_string(topology.switches().size()) +
                                    " switches needs about " + format_size_about(need) + " (" + parts + "), more than the " +
                                    (given ? format_size(available) : format_size_about(available)) +
                                    (given ? " of --sim-memory" : " of memory available here"));
    };
}

} // namespace evb::netsim
