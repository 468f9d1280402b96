// What one part of the simulated fabric hands another at the end of a window, beside the credits
// returned over a cut link (Links::CreditReturn) and the ACKs to another part's hosts
// (FabricSim): a packet that crossed a cut link, with its message's record when it is the
// message's last packet (the part that delivers it keeps the record from then on). FabricSim runs
// the parts apart within a window (SimPart::window_ps); everything handed over takes effect at or
// after the window's end, so the receiving part has run nothing it could have changed.
#pragma once
#include "netsim/engine/sim_packets.hpp"

#include <cstdint>

namespace evb::netsim {

// A message in flight, as its adapters keep it (HostAdapters).
struct MessageRecord {
    std::uint32_t src, dst, next; // next: the message after it in its flow, at its source
    std::uint64_t bytes, tag, delivered;
    std::int64_t posted;
};

struct CrossingPacket {
    std::int64_t at; // its enter event at the switch across the cut
    std::uint32_t in, hop; // the input it enters, the link index it came in on
    SimPackets::Packet packet;
    SimPackets::Pace paces[SimPackets::max_paces - 1]; // beyond packet.pace, up to pace_count
    bool with_message; // its message's last packet: `message` moves with it
    MessageRecord message;
};

} // namespace evb::netsim
