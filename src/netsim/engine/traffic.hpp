// Synthetic traffic injectors (thesis 3.4.4, paper 003 sec. 3.5), each a SimApp:
//   shift         one-to-one, host i sends to i + s (mod hosts)
//   many-to-one   hosts 1..n send to host 0
//   linear        fixed-size linear shifter: each host's k-th message goes to i + 1 + (k mod (H-1)),
//                 every host advancing at its own pace
//   a2a           time-window linear shifter: synchronised phases of a send window and an idle
//                 window (thesis eq. 3.2-3.4); phase p sends to i + 1 + (p mod (H-1))
//   random        every message to a uniformly drawn other host
// Senders keep `depth` messages posted, each done at its sender when its ACK is back (so a
// sender's state changes only at the sender's host); they stop after `messages` each or at
// `stop`. The a2a phases change on a global timer.
#pragma once
#include "netsim/engine/fabric_sim.hpp"

#include <algorithm>
#include <string>

namespace evb::netsim {

enum class TrafficPattern { shift, many_to_one, linear, a2a, random };
TrafficPattern parse_traffic_pattern(const std::string& name); // throws std::invalid_argument
std::string to_string(TrafficPattern p);

struct TrafficSpec {
    TrafficPattern pattern = TrafficPattern::linear;
    std::uint64_t message_bytes = 1 << 20;
    std::uint32_t shift = 1; // shift
    std::uint32_t senders = 0; // many-to-one; 0: every other host
    std::uint64_t messages = 0; // per sender; 0: until `stop`
    std::uint32_t depth = 2; // messages posted ahead per sender
    Picoseconds send_window{}, idle_window{}; // a2a
    Picoseconds stop = Picoseconds::max(); // no new message posted at or after this time
    std::uint64_t seed = 1; // random

    void validate(std::uint32_t hosts) const; // throws std::invalid_argument
    // a2a: a send window that cannot hold one message at line rate moves nothing; throws
    // std::invalid_argument naming the window, the message and its wire time.
    void validate_window(const IbParams& ib) const;
};

class TrafficInjector : public SimApp {
public:
    explicit TrafficInjector(TrafficSpec spec) : spec_(std::move(spec)) {}
    void start(FabricSim& sim) override;
    void delivered(FabricSim&, const SimMessage& m) override { last_delivery_[m.dst] = std::max(last_delivery_[m.dst], m.delivered); }
    void acknowledged(FabricSim& sim, const SimMessage& m) override;
    bool wants_acks() const override { return true; }
    void global_timer(FabricSim& sim, std::uint64_t tag) override;
    // When the last message was delivered (its ACK comes later).
    Picoseconds last_delivery() const;

private:
    bool is_sender(std::uint32_t host) const;
    void top_up(FabricSim& sim, std::uint32_t host);
    std::uint32_t destination(std::uint32_t host, std::uint64_t k) const;

    TrafficSpec spec_;
    std::uint32_t hosts_ = 0;
    std::vector<std::uint64_t> posted_, outstanding_; // per host
    std::vector<Picoseconds> last_delivery_; // per host
    std::uint64_t phase_ = 0; // a2a
    bool sending_ = true; // a2a: inside a send window
};

} // namespace evb::netsim
