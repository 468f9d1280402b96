// One part of the simulated fabric as one thread runs it: its clock and event queue (SimPart),
// its packets, and its elements, the links, the switches and the host adapters. They are parts
// of one object, so an element reaches another at a fixed offset from itself rather than through
// a reference (a load on every step of the hot path); each keeps its own state private.
#pragma once
#include "netsim/engine/fabric_part.hpp"
#include "netsim/engine/host_adapters.hpp"
#include "netsim/engine/links.hpp"
#include "netsim/engine/sim_packets.hpp"
#include "netsim/engine/switches.hpp"

namespace evb::netsim {

class FabricElements final : public SimPart, public SimPackets, public Links, public Switches, public HostAdapters {
public:
    // `o`: the options, checked (sim_model.hpp), which outlive this.
    explicit FabricElements(const SimOptions& o) : SimPart(o), Links(o), HostAdapters(o.seed) {}
    FabricElements(const FabricElements&) = delete;
    FabricElements& operator=(const FabricElements&) = delete;

    SimPart& part() { return *this; }
    const SimPart& part() const { return *this; }
    SimPackets& packets() { return *this; }
    const SimPackets& packets() const { return *this; }
    Links& links() { return *this; }
    const Links& links() const { return *this; }
    Switches& switches() { return *this; }
    const Switches& switches() const { return *this; }
    HostAdapters& adapters() { return *this; }
    const HostAdapters& adapters() const { return *this; }
};

template <class Self>
FabricElements& FabricElement<Self>::whole() {
    return static_cast<FabricElements&>(static_cast<Self&>(*this));
}
template <class Self>
const FabricElements& FabricElement<Self>::whole() const {
    return static_cast<const FabricElements&>(static_cast<const Self&>(*this));
}
// clang-format off
template <class Self> SimPart& FabricElement<Self>::part() { return whole(); }
template <class Self> const SimPart& FabricElement<Self>::part() const { return whole(); }
template <class Self> SimPackets& FabricElement<Self>::packets() { return whole(); }
template <class Self> const SimPackets& FabricElement<Self>::packets() const { return whole(); }
template <class Self> Links& FabricElement<Self>::links() { return whole(); }
template <class Self> const Links& FabricElement<Self>::links() const { return whole(); }
template <class Self> Switches& FabricElement<Self>::switches() { return whole(); }
template <class Self> const Switches& FabricElement<Self>::switches() const { return whole(); }
template <class Self> HostAdapters& FabricElement<Self>::adapters() { return whole(); }
template <class Self> const HostAdapters& FabricElement<Self>::adapters() const { return whole(); }
// clang-format on

} // namespace evb::netsim
