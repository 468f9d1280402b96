// Shared expectations on fabrics: two topologies are the same fabric when they have the same
// nodes (by GUID), kinds, names, port counts and cables.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <gtest/gtest.h>

#include <map>

namespace evb::test {
using netsim::Device;
using netsim::Topology;

// Compares two fabrics by GUID: same nodes, kinds, names, port counts and cables.
inline void expect_same_fabric(const Topology& a, const Topology& b) {
    std::map<std::uint64_t, std::uint32_t> in_b;
    for (std::uint32_t d = 0; d < b.devices().size(); ++d) in_b[b.device(d).guid] = d;
    ASSERT_EQ(a.devices().size(), b.devices().size());
    ASSERT_EQ(a.hosts().size(), b.hosts().size());
    for (std::uint32_t d = 0; d < a.devices().size(); ++d) {
        const Device& x = a.device(d);
        ASSERT_TRUE(in_b.count(x.guid)) << x.name;
        const Device& y = b.device(in_b[x.guid]);
        EXPECT_EQ(x.kind, y.kind) << x.name;
        EXPECT_EQ(x.name, y.name);
        ASSERT_EQ(x.ports.size(), y.ports.size()) << x.name;
        EXPECT_EQ(x.adapter_port, y.adapter_port) << x.name;
        for (std::uint32_t p = 0; p < x.ports.size(); ++p) {
            ASSERT_EQ(x.ports[p].has_value(), y.ports[p].has_value()) << x.name << " port " << p;
            if (!x.ports[p]) continue;
            EXPECT_EQ(a.device(x.ports[p]->device).guid, b.device(y.ports[p]->device).guid) << x.name << " port " << p;
            EXPECT_EQ(x.ports[p]->port, y.ports[p]->port) << x.name << " port " << p;
        }
    }
}

} // namespace evb::test
