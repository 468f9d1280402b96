// What every element of the simulated fabric (Links, Switches, HostAdapters) reaches the others
// of its part by: the element is a base of one FabricElements object, so another element is
// itself cast to that whole, a fixed offset away, not a reference to follow on the hot path.
// Defined in fabric_elements.hpp, where the whole is complete.
#pragma once

namespace evb::netsim {

struct SimPart;
class SimPackets;
class Links;
class Switches;
class HostAdapters;
class FabricElements;

template <class Self>
class FabricElement {
protected:
    SimPart& part();
    const SimPart& part() const;
    SimPackets& packets();
    const SimPackets& packets() const;
    Links& links();
    const Links& links() const;
    Switches& switches();
    const Switches& switches() const;
    HostAdapters& adapters();
    const HostAdapters& adapters() const;

private:
    FabricElements& whole();
    const FabricElements& whole() const;
};

} // namespace evb::netsim
