#include "netsim/engine/traffic.hpp"

#include "core/hash.hpp"

namespace evb::netsim {

TrafficPattern parse_traffic_pattern(const std::string& name) {
    if (name == "shift") return TrafficPattern::shift;
    if (name == "many-to-one") return TrafficPattern::many_to_one;
    if (name == "linear") return TrafficPattern::linear;
    if (name == "a2a") return TrafficPattern::a2a;
    if (name == "random") return TrafficPattern::random;
    throw std::invalid_argument("unknown traffic pattern '" + name + "' (choose shift|many-to-one|linear|a2a|random)");
}

std::string to_string(TrafficPattern p) {
    switch (p) {
    case TrafficPattern::shift: return "shift";
    case TrafficPattern::many_to_one: return "many-to-one";
    case TrafficPattern::linear: return "linear";
    case TrafficPattern::a2a: return "a2a";
    case TrafficPattern::random: return "random";
    }
    return "?";
}

void TrafficSpec::validate(std::uint32_t hosts) const {
    if (hosts < 2) throw std::invalid_argument("traffic needs at least 2 hosts");
    if (message_bytes == 0 || message_bytes > (std::uint64_t{1} << 40))
        throw std::invalid_argument("message size must be within 1 B..1 TiB");
    if (depth == 0 || depth > 1024) throw std::invalid_argument("depth must be within 1..1024");
    if (pattern == TrafficPattern::shift && (shift == 0 || shift % hosts == 0))
        throw std::invalid_argument("shift " + std::to_string(shift) + " sends every host to itself on " + std::to_string(hosts) +
                                    " hosts");
    if (pattern == TrafficPattern::many_to_one && senders >= hosts)
        throw std::invalid_argument("many-to-one with " + std::to_string(senders) + " senders needs more than " + std::to_string(hosts) +
                                    " hosts");
    if (pattern == TrafficPattern::a2a && send_window.count() <= 0) throw std::invalid_argument("a2a needs a send window above zero");
    if (pattern == TrafficPattern::a2a && idle_window.count() < 0) throw std::invalid_argument("a2a idle window cannot be negative");
    if (messages == 0 && stop == Picoseconds::max()) throw std::invalid_argument("traffic needs a message count or a duration");
}

// Wire time of one message at line rate, its packets' headers and footers included.
static std::int64_t message_wire_ps(const IbParams& ib, std::uint64_t bytes) {
    const std::uint64_t packets = (bytes + ib.mtu - 1) / ib.mtu;
    return ib.wire_time_ps(bytes + packets * (ib.header_bytes + ib.footer_bytes));
}

void TrafficSpec::validate_window(const IbParams& ib) const {
    if (pattern != TrafficPattern::a2a || send_window.count() <= 0) return; // validate() names that
    const std::int64_t need = message_wire_ps(ib, message_bytes);
    if (send_window.count() < need)
        throw std::invalid_argument("a2a: a send window of " + std::to_string(send_window.count() / 1000) + " ns cannot hold one " +
                                    std::to_string(message_bytes) + " B message (" + std::to_string(need / 1000) + " ns at " +
                                    std::to_string(static_cast<int>(ib.link_gbps)) +
                                    " Gb/s): lengthen --send-window or shorten the message");
}

bool TrafficInjector::is_sender(std::uint32_t host) const {
    if (spec_.pattern != TrafficPattern::many_to_one) return true;
    std::uint32_t n = spec_.senders ? spec_.senders : hosts_ - 1;
    return host >= 1 && host <= n;
}

std::uint32_t TrafficInjector::destination(std::uint32_t host, std::uint64_t k) const {
    const std::uint64_t others = hosts_ - 1;
    switch (spec_.pattern) {
    case TrafficPattern::shift: return static_cast<std::uint32_t>((host + spec_.shift) % hosts_);
    case TrafficPattern::many_to_one: return 0;
    case TrafficPattern::linear: return static_cast<std::uint32_t>((host + 1 + k % others) % hosts_);
    case TrafficPattern::a2a: return static_cast<std::uint32_t>((host + 1 + phase_ % others) % hosts_);
    case TrafficPattern::random: return static_cast<std::uint32_t>((host + 1 + mix64(spec_.seed, host, k) % others) % hosts_);
    }
    return 0;
}

void TrafficInjector::start(FabricSim& sim) {
    hosts_ = sim.hosts();
    spec_.validate(hosts_);
    posted_.assign(hosts_, 0);
    outstanding_.assign(hosts_, 0);
    last_delivery_.assign(hosts_, Picoseconds{});
    if (spec_.pattern == TrafficPattern::a2a) sim.set_global_timer(spec_.send_window, 1); // end of window 0
    for (std::uint32_t h = 0; h < hosts_; ++h) top_up(sim, h);
}

void TrafficInjector::top_up(FabricSim& sim, std::uint32_t host) {
    if (!is_sender(host) || !sending_) return;
    const std::int64_t message_ps = message_wire_ps(sim.options().ib, spec_.message_bytes);
    const std::int64_t period = (spec_.send_window + spec_.idle_window).count();
    while (outstanding_[host] < spec_.depth && (spec_.messages == 0 || posted_[host] < spec_.messages) && sim.now() < spec_.stop) {
        // a2a: only what the adapter can still send, at line rate, before the window closes.
        if (spec_.pattern == TrafficPattern::a2a &&
            sim.now().count() + static_cast<std::int64_t>(outstanding_[host] + 1) * message_ps >
                static_cast<std::int64_t>(phase_) * period + spec_.send_window.count())
            break;
        sim.post(host, destination(host, posted_[host]), spec_.message_bytes, posted_[host]);
        ++posted_[host];
        ++outstanding_[host];
    }
}

Picoseconds TrafficInjector::last_delivery() const {
    return last_delivery_.empty() ? Picoseconds{} : *std::max_element(last_delivery_.begin(), last_delivery_.end());
}

void TrafficInjector::acknowledged(FabricSim& sim, const SimMessage& m) {
    --outstanding_[m.src];
    top_up(sim, m.src);
}

void TrafficInjector::global_timer(FabricSim& sim, std::uint64_t tag) {
    // a2a: tag 1 closes the send window, tag 0 opens the next phase; the clock stops with the traffic.
    if (sim.now() >= spec_.stop) return;
    bool more = spec_.messages == 0;
    for (std::uint32_t h = 0; h < hosts_ && !more; ++h) more = is_sender(h) && posted_[h] < spec_.messages;
    if (!more) return;
    const Picoseconds period = spec_.send_window + spec_.idle_window;
    if (tag == 1 && spec_.idle_window.count() > 0) {
        sending_ = false;
        sim.set_global_timer(Picoseconds(static_cast<std::int64_t>(phase_ + 1) * period.count()), 0);
        return;
    }
    ++phase_;
    sending_ = true;
    sim.set_global_timer(Picoseconds(static_cast<std::int64_t>(phase_) * period.count()) + spec_.send_window, 1);
    for (std::uint32_t h = 0; h < hosts_; ++h) top_up(sim, h);
}

} // namespace evb::netsim
