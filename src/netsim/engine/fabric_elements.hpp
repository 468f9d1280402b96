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

// How an element reaches the others of its part: itself, as the whole it is a part of.
#define EVB_ELEMENT_REACHES(Element, name, Type)                                                                                           \
    inline Type& Element::name() { return static_cast<FabricElements&>(*this).name(); }                                                    \
    inline const Type& Element::name() const { return static_cast<const FabricElements&>(*this).name(); }
EVB_ELEMENT_REACHES(Links, part, SimPart)
EVB_ELEMENT_REACHES(Links, packets, SimPackets)
EVB_ELEMENT_REACHES(Links, switches, Switches)
EVB_ELEMENT_REACHES(Links, adapters, HostAdapters)
EVB_ELEMENT_REACHES(Switches, part, SimPart)
EVB_ELEMENT_REACHES(Switches, packets, SimPackets)
EVB_ELEMENT_REACHES(Switches, links, Links)
EVB_ELEMENT_REACHES(HostAdapters, part, SimPart)
EVB_ELEMENT_REACHES(HostAdapters, packets, SimPackets)
EVB_ELEMENT_REACHES(HostAdapters, links, Links)
EVB_ELEMENT_REACHES(HostAdapters, switches, Switches)
#undef EVB_ELEMENT_REACHES

} // namespace evb::netsim
