// What one part of the simulated fabric hands another at the end of a window, beside the credits
// returned over a cut link (Links::CreditReturn) and the ACKs to another part's hosts
// (FabricSim): a packet that crossed a cut link, with its message's record when it is the
// message's last packet (the part that delivers it keeps the record from then on). FabricSim runs
// the parts apart within a window (SimPart::window_ps); everything handed over takes effect at or
// after the window's end, so the receiving part has run nothing it could have changed.
#pragma once
#include "netsim/engine/sim_packets.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace evb::netsim {

// A message in flight, as its adapters keep it (HostAdapters).
struct MessageRecord {
    std::uint32_t src, dst, next; // next: the message after it in its flow, at its source
    std::uint64_t bytes, tag, delivered;
    std::int64_t posted;
};

struct CrossingPacket {
    std::int64_t at; // when it may ask its output at the switch across the cut
    std::uint32_t in, hop; // the input it joins, the link index it came in on
    SimPackets::Packet packet;
    SimPackets::Pace paces[SimPackets::max_paces - 1]; // beyond packet.pace, up to pace_count
    bool with_message; // its message's last packet: `message` moves with it
    MessageRecord message;
};

// What one part sends the others in a window, per receiving part, in two sets by the window's
// parity: while the sender writes this window's, each receiver takes and empties what the last
// window left for it, at the start of its next run (FabricSim), on its own thread.
template <class T>
class Outbox {
public:
    void reset(std::uint32_t parts) {
        for (auto& set : sets_) set.assign(parts, {});
    }
    std::vector<T>& to(std::uint32_t part) { return sets_[writing_][part]; }
    // The last window's for `part`.
    std::vector<T>& written(std::uint32_t part) { return sets_[writing_ ^ 1][part]; }
    void next_window() { writing_ ^= 1; }
    // Whether the last window left anything.
    bool holds_written() const {
        for (const auto& box : sets_[writing_ ^ 1])
            if (!box.empty()) return true;
        return false;
    }
    // Every item of both windows.
    template <class Visit>
    void each(Visit&& visit) const {
        for (const auto& set : sets_)
            for (const auto& box : set)
                for (const T& item : box) visit(item);
    }

private:
    std::array<std::vector<std::vector<T>>, 2> sets_;
    std::uint32_t writing_ = 0;
};

} // namespace evb::netsim
