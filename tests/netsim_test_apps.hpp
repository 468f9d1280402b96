// What the simulator's unit tests share: options with every check on, and an app that posts
// messages at the start and records when each arrives.
#pragma once
#include "netsim/engine/fabric_sim.hpp"
#include "netsim/fabric/fabric_options.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace evb::test {

// A generated fat tree of `k`-port switches and `levels` levels, routed by `routing`.
inline netsim::Fabric fat_tree(std::uint32_t k, std::uint32_t levels = 2, std::string routing = "ftree") {
    netsim::FabricOptions o;
    o.tree.k = k;
    o.tree.levels = levels;
    o.routing = std::move(routing);
    return netsim::build_fabric(o);
}

inline netsim::SimOptions checked(netsim::SimMode mode = netsim::SimMode::packet) {
    netsim::SimOptions o;
    o.mode = mode;
    o.checks = true;
    return o;
}

struct Recorder : netsim::SimApp {
    std::vector<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> posts; // source, destination, bytes
    std::vector<netsim::SimMessage> done;
    void start(netsim::FabricSim& sim) override {
        for (auto [src, dst, bytes] : posts) sim.post(src, dst, bytes, done.size());
    }
    void delivered(netsim::FabricSim&, const netsim::SimMessage& m) override { done.push_back(m); }
};

} // namespace evb::test
