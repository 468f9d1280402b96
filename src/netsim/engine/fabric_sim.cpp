#include "netsim/engine/fabric_sim.hpp"

#include "core/machine_info.hpp"
#include "core/quantity.hpp"
#include "netsim/engine/fabric_partition.hpp"

#include <algorithm>
#include <utility>

namespace evb::netsim {

thread_local FabricSim::Part* FabricSim::current_ = nullptr;

FabricSim::FabricSim(const Topology& topology, const Routing& routing, SimOptions options)
    : topology_(topology), options_(checked(std::move(options))) {
    const auto& devices = topology.devices();
    std::vector<std::uint32_t> host_index(devices.size(), SimPart::none);
    for (std::uint32_t h = 0; h < topology.hosts().size(); ++h) host_index[topology.hosts()[h]] = h;
    const FabricPartition cut = options_.parts > 1 ? partition_fabric(topology, options_.parts) : FabricPartition{};
    for (std::uint32_t i = 0; i < cut.parts; ++i) {
        auto& p = parts_.emplace_back(std::make_unique<Part>(options_))->fabric;
        p.links().build(topology, host_index);
        p.adapters().build(topology);
        p.switches().build(topology, routing);
        if (cut.parts > 1) p.links().assign_part(i, cut.parts, cut.part_of_device);
        parts_.back()->acks_out.reset(cut.parts);
    }
    if (cut.parts > 1)
        for (const std::uint32_t dev : topology.hosts()) part_of_host_.push_back(cut.part_of_device[dev]);
    if (const std::uint32_t threads = std::min(options_.threads, cut.parts); threads > 1) {
        threads_ = std::make_unique<RoundRunner>(threads);
        thread_busy_.assign(threads, 0);
    }
}

// ---- what the hosts ask ----------------------------------------------------------------------

FabricSim::Part& FabricSim::part_of(std::uint32_t host, const char* what) {
    if (part_of_host_.empty()) return *parts_.front();
    if (host >= part_of_host_.size())
        throw std::invalid_argument(std::string(what) + " on host " + std::to_string(host) + " of " + std::to_string(hosts()));
    Part& p = *parts_[part_of_host_[host]];
    // A host's callback acts on its own part: another part may be anywhere in the window.
    if (current_ && current_ != &p)
        current_->fabric.check_failed(std::string(what) + " on host " + std::to_string(host) +
                                      " from a callback of a host in another part of the fabric");
    return p;
}

void FabricSim::post(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t tag) {
    part_of(src, "a message posted").fabric.adapters().post(src, dst, bytes, tag);
}

void FabricSim::set_timer(Picoseconds at, std::uint32_t host, std::uint64_t tag) {
    Part& p = part_of(host, "a timer set");
    p.fabric.queue.push(std::max(p.fabric.now, at.count()), event::timer_fired, p.timers.add(Timer{host, tag}));
}

void FabricSim::set_global_timer(Picoseconds at, std::uint64_t tag) {
    // From a host's callback it could fall inside the window, where other parts ran past it.
    if (current_) current_->fabric.check_failed("a global timer set from a host's callback");
    global_timers_.push_back(GlobalTimer{std::max(now().count(), at.count()), global_timer_seq_++, tag});
    std::push_heap(global_timers_.begin(), global_timers_.end(), GlobalTimer::later);
}

// ---- running ----------------------------------------------------------------------------------

void FabricSim::run(SimApp& app, Picoseconds until) {
    app_ = &app;
    for (auto& p : parts_) p->fabric.running = true;
    if (!started_) app.start(*this);
    started_ = true;
    if (options_.mode == SimMode::packet)
        run_events<Granularity::packets>(until.count());
    else
        run_events<Granularity::chunks>(until.count());
    // Every part at the same time: the last event's when the run is over, else `until`.
    std::int64_t end = until.count();
    if (idle()) {
        end = now_;
        for (auto& p : parts_) end = std::max(end, p->fabric.now);
    }
    now_ = end;
    for (auto& p : parts_) {
        p->fabric.running = false;
        p->fabric.now = end;
        p->fabric.links().close_waits();
    }
    app_ = nullptr;
    handover_from_ = {}; // the caller's time between runs is not a handover
}

bool FabricSim::idle() const {
    if (!global_timers_.empty() || mail_waiting_) return false;
    for (const auto& p : parts_)
        if (!p->fabric.queue.empty()) return false;
    return true;
}

// Window by window, each part in turn; a global timer between the events before its time and those at it.
template <Granularity G>
void FabricSim::run_events(std::int64_t until) {
    const std::int64_t window_ps = first().window_ps;
    constexpr std::int64_t never = INT64_MAX;
    for (;;) {
        const std::int64_t timer = global_timers_.empty() ? never : global_timers_.front().at;
        if (!window_open_) {
            // What the last window left takes effect at its end or later.
            const std::int64_t next = mail_waiting_ ? std::min(next_event_time(), window_end_) : next_event_time();
            if (std::min(next, timer) > until || std::min(next, timer) == never) return;
            if (timer <= next) {
                fire_global_timer();
                continue;
            }
            window_end_ = window_ps > 0 ? (next / window_ps + 1) * window_ps : never;
            window_open_ = true;
        }
        const std::int64_t stop = std::min({window_end_ - 1, until, timer - 1});
        const bool take = std::exchange(mail_waiting_, false);
        if (threads_) {
            using clock = std::chrono::steady_clock;
            const std::uint32_t threads = threads_->threads();
            const clock::time_point start = clock::now();
            if (handover_from_ != clock::time_point{})
                window_stats_.handover_seconds += std::chrono::duration<double>(start - handover_from_).count();
            threads_->run([&](std::uint32_t t) {
                const clock::time_point from = clock::now();
                for (std::size_t i = t; i < parts_.size(); i += threads) {
                    if (take) take_mail(static_cast<std::uint32_t>(i));
                    run_part<G>(*parts_[i], stop);
                }
                thread_busy_[t] = std::chrono::duration<double>(clock::now() - from).count();
            });
            handover_from_ = clock::now();
            double busy = 0;
            for (const double b : thread_busy_) busy += b;
            window_stats_.busy_seconds += busy;
            window_stats_.wait_seconds += threads * std::chrono::duration<double>(handover_from_ - start).count() - busy;
        } else {
            for (std::uint32_t i = 0; i < parts_.size(); ++i) {
                if (take) take_mail(i);
                run_part<G>(*parts_[i], stop);
            }
        }
        if (timer - 1 == stop && timer <= until) {
            fire_global_timer();
        } else if (stop == window_end_ - 1) {
            mail_waiting_ = close_window();
            ++window_stats_.windows;
            window_open_ = false;
        } else {
            return; // at `until`, inside the window
        }
    }
}

template <Granularity G>
void FabricSim::run_part(Part& part, std::int64_t stop) {
    FabricElements& f = part.fabric;
    current_ = &part;
    struct Leave {
        ~Leave() { current_ = nullptr; }
    } leave; // also when an event throws
    SimEvent e;
    while (f.queue.pop_due(stop, e)) {
        f.now = e.time;
        ++f.events;
        dispatch<G>(part, e);
        // Outputs decide once everything that happens at this instant has happened, in port
        // order: the outcome of a tie never depends on the order events were scheduled in.
        if (f.has_dirty_ports() && !f.queue.more_now()) f.arbitrate_dirty_ports<G>();
    }
}

std::int64_t FabricSim::next_event_time() {
    std::int64_t next = INT64_MAX;
    for (auto& p : parts_)
        if (!p->fabric.queue.empty()) next = std::min(next, p->fabric.queue.top().time);
    return next;
}

void FabricSim::fire_global_timer() {
    std::pop_heap(global_timers_.begin(), global_timers_.end(), GlobalTimer::later);
    const GlobalTimer t = global_timers_.back();
    global_timers_.pop_back();
    now_ = std::max(now_, t.at);
    for (auto& p : parts_) p->fabric.now = std::max(p->fabric.now, t.at);
    ++global_events_;
    app_->global_timer(*this, t.tag);
}

bool FabricSim::close_window() {
    bool waiting = false;
    for (auto& p : parts_) {
        Links& links = p->fabric.links();
        links.credits_out().next_window();
        links.crossings_out().next_window();
        p->acks_out.next_window();
        waiting = waiting || links.credits_pending() || links.holds_written_mail() || p->acks_out.holds_written();
    }
    return waiting;
}

// On the part's own thread, before its next events (all at the window's end or later). What
// crossed takes effect in an order of its own, not the order the parts ran in: credits per output
// as returned (they come from one input), packets by time and input, ACKs by time and sending
// host (each sends its ACKs from one part, in order).
void FabricSim::take_mail(std::uint32_t self) {
    Part& to = *parts_[self];
    Links& links = to.fabric.links();
    links.give_pending_credits();
    if (parts_.size() > 1) {
        to.crossings_in.clear();
        for (auto& from : parts_) {
            std::vector<Links::CreditReturn>& credits = from->fabric.links().credits_out().written(self);
            for (const Links::CreditReturn& c : credits) links.receive(c);
            credits.clear();
            for (const CrossingPacket& c : from->fabric.links().crossings_out().written(self)) to.crossings_in.push_back(&c);
        }
        std::sort(to.crossings_in.begin(), to.crossings_in.end(),
                  [](const CrossingPacket* x, const CrossingPacket* y) { return x->at < y->at || (x->at == y->at && x->in < y->in); });
        for (const CrossingPacket* c : to.crossings_in) links.receive(*c);
        for (auto& from : parts_) from->fabric.links().crossings_out().written(self).clear();
    }
    to.acks_in.clear();
    for (auto& from : parts_) {
        std::vector<std::pair<std::int64_t, SimMessage>>& acks = from->acks_out.written(self);
        to.acks_in.insert(to.acks_in.end(), acks.begin(), acks.end());
        acks.clear();
    }
    std::stable_sort(to.acks_in.begin(), to.acks_in.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first || (x.first == y.first && x.second.dst < y.second.dst); });
    for (const auto& [at, m] : to.acks_in) to.fabric.queue.push(at, event::ack, to.acks.add(m));
}

template <Granularity G>
void FabricSim::dispatch(Part& part, const SimEvent& e) {
    FabricElements& f = part.fabric;
    switch (e.kind) {
    case event::arrive: { // flit and aggregated modes: a chunk is wholly in
        const Links::Arrival x = f.links().take_arrival(e.a);
        if (f.links().port(x.in).host == SimPart::none)
            f.switches().chunk_arrived(x.in, x.packet, x.hop, x.chunk);
        else if (f.adapters().sink_chunk(x.in, x.packet, x.chunk))
            deliver<Granularity::chunks>(part, x.packet);
        break;
    }
    case event::tx_done: f.links().on_tx_done<G>(e.a); break;
    case event::wake: f.links().on_wake(e.a, e.time); break;
    case event::head_ready: f.switches().head_ready(e.a); break;
    case event::message_ready: f.adapters().message_ready(e.a); break;
    case event::deliver: deliver<G>(part, e.a); break;
    case event::ack: {
        const SimMessage m = part.acks.take(e.a);
        app_->acknowledged(*this, m);
        break;
    }
    case event::timer_fired: {
        const Timer t = part.timers.take(e.a);
        app_->timer(*this, t.host, t.tag);
        break;
    }
    }
}

template <Granularity G>
void FabricSim::deliver(Part& part, std::uint32_t pk) {
    FabricElements& f = part.fabric;
    const SimMessage* done = f.adapters().deliver<G>(pk);
    if (!done) return;
    const SimMessage m = *done;
    if (app_->wants_acks()) {
        // An ACK takes effect at its sender no earlier than the window's end (HostAdapters::ack_ps).
        const std::int64_t at = f.now + f.adapters().ack_ps(m.dst, m.src);
        if (f.window_ps > 0)
            part.acks_out.to(part_of_host(m.src)).emplace_back(at, m);
        else
            f.queue.push(at, event::ack, part.acks.add(m));
    }
    app_->delivered(*this, m);
}

// ---- what it counted --------------------------------------------------------------------------

void FabricSim::verify_quiescent() const {
    for (const auto& p : parts_) {
        const FabricElements& f = p->fabric;
        if (f.adapters().messages_in_flight() || f.packets().live())
            f.check_failed(std::to_string(f.adapters().messages_in_flight()) + " messages and " + std::to_string(f.packets().live()) +
                           " packets still in flight");
        f.links().verify_credits();
    }
}

const std::vector<SimHostStats>& FabricSim::host_stats() const {
    if (parts_.size() == 1) return first().adapters().stats(first().arrived_by());
    merged_stats_.resize(hosts());
    for (const auto& p : parts_) {
        const auto& stats = p->fabric.adapters().stats(p->fabric.arrived_by());
        for (std::uint32_t h = 0; h < hosts(); ++h)
            if (parts_[part_of_host_[h]] == p) merged_stats_[h] = stats[h];
    }
    return merged_stats_;
}

const LatencyHistogram& FabricSim::packet_latency() const {
    if (parts_.size() == 1) return first().adapters().packet_latency(first().arrived_by());
    merged_packet_latency_ = LatencyHistogram{};
    for (const auto& p : parts_) merged_packet_latency_.merge(p->fabric.adapters().packet_latency(p->fabric.arrived_by()));
    return merged_packet_latency_;
}

const LatencyHistogram& FabricSim::message_latency() const {
    if (parts_.size() == 1) return first().adapters().message_latency();
    merged_message_latency_ = LatencyHistogram{};
    for (const auto& p : parts_) merged_message_latency_.merge(p->fabric.adapters().message_latency());
    return merged_message_latency_;
}

std::uint64_t FabricSim::events() const {
    return global_events_ + sum_over_parts([](const Part& p) { return p.fabric.events; });
}

std::uint64_t FabricSim::messages_in_flight() const {
    return sum_over_parts([](const Part& p) {
        std::uint64_t n = p.fabric.adapters().messages_in_flight();
        p.fabric.links().crossings_out().each([&n](const CrossingPacket& c) { n += c.with_message; }); // between two parts' records
        return n;
    });
}

std::size_t FabricSim::ramp_entries() const {
    return sum_over_parts([](const Part& p) { return p.fabric.links().ramp_entries(); });
}

std::size_t FabricSim::arriving_entries() const {
    return sum_over_parts([](const Part& p) { return p.fabric.adapters().arriving_entries(); });
}

// Each port as the part that owns its device counted it.
std::vector<SimPortStats> FabricSim::port_stats() const {
    std::vector<SimPortStats> out;
    const Links& cut = first().links();
    for (std::uint32_t i = 0; i < cut.port_count(); ++i) {
        const Links& links = parts_[cut.part_of_port(i)]->fabric.links();
        const Links::Port& p = links.port(i);
        const PortCounters::Sent c = links.sent_counters(i);
        if (p.peer != SimPart::none)
            out.push_back(SimPortStats{p.device, p.local, c.tx_bytes, c.tx_packets, c.tx_blocks, links.xmit_wait_ps(i)});
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
    const Links& cut = first().links();
    for (std::uint32_t i = 0; i < cut.port_count(); ++i) n += parts_[cut.part_of_port(i)]->fabric.links().sent_counters(i).tx_blocks;
    return n;
}

std::uint64_t routing_table_bytes(const Topology& topology) {
    return 2 * std::uint64_t{topology.switches().size()} * (topology.max_lid() + 1);
}

std::uint64_t simulator_bytes(const Topology& topology, std::uint32_t parts) {
    std::uint64_t ports = 0;
    for (const auto& d : topology.devices()) ports += d.ports.size();
    return routing_table_bytes(topology) + 1024 * ports * parts;
}

void limit_to_simulator(FabricOptions& options, std::uint64_t memory, HostState state, std::uint32_t cut) {
    const std::uint64_t available = memory ? memory : available_memory_bytes();
    options.check_size = [available, given = memory != 0, state, cut](const Topology& topology) {
        const std::uint64_t hosts = topology.hosts().size();
        const std::uint64_t units = state.fixed + state.per_host * hosts + state.per_pair * hosts * hosts;
        const std::uint64_t need = simulator_bytes(topology, cut) + units;
        if (need <= available) return;
        std::string parts = "the simulator's tables " + format_size_about(simulator_bytes(topology, cut)) +
            (cut > 1 ? " in " + std::to_string(cut) + " parts" : std::string()) +
            ", of which the routing tables (2 B per switch and LID) " + format_size_about(routing_table_bytes(topology));
        if (!state.what.empty()) parts += "; " + state.what + " " + format_size_about(units);
        throw std::invalid_argument("simulating " + std::to_string(hosts) + " hosts and " + std::to_string(topology.switches().size()) +
                                    " switches needs about " + format_size_about(need) + " (" + parts + "), more than the " +
                                    (given ? format_size(available) : format_size_about(available)) +
                                    (given ? " of --sim-memory" : " of memory available here"));
    };
}

} // namespace evb::netsim
