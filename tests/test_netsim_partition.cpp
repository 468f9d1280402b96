// The cut of a simulated fabric into parts (partition_fabric): hosts with their leaf, so that
// only links between switches are cut; parts of about equal weight; pods of a tree whole.
#include "netsim/engine/fabric_partition.hpp"
#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "netsim_test_apps.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

using namespace evb;
using namespace evb::netsim;

namespace {

// What every plan keeps: each device in a part, each host in its leaf's, the weights and the cut
// as the devices say, and no part heavier than another by more than two of its heaviest switches.
void expect_a_sound_plan(const Topology& t, const FabricPartition& plan) {
    const auto& devices = t.devices();
    ASSERT_EQ(plan.part_of_device.size(), devices.size());
    std::vector<std::uint64_t> weight(plan.parts, 0);
    std::uint64_t cut = 0, heaviest_switch = 0;
    for (std::uint32_t d = 0; d < devices.size(); ++d) {
        ASSERT_LT(plan.part_of_device[d], plan.parts) << devices[d].name;
        weight[plan.part_of_device[d]] += cabled_ports(devices[d]);
        if (devices[d].kind != DeviceKind::host) heaviest_switch = std::max<std::uint64_t>(heaviest_switch, cabled_ports(devices[d]));
        for (const auto& peer : devices[d].ports) {
            if (!peer || plan.part_of_device[peer->device] == plan.part_of_device[d]) continue;
            EXPECT_NE(devices[d].kind, DeviceKind::host) << devices[d].name << " is cut from " << devices[peer->device].name;
            if (peer->device > d) ++cut;
        }
    }
    EXPECT_EQ(weight, plan.weight);
    EXPECT_EQ(cut, plan.cut_links);
    const auto [lightest, heaviest] = std::minmax_element(weight.begin(), weight.end());
    EXPECT_LE(*heaviest - *lightest, 2 * heaviest_switch) << "parts of " << *lightest << " and " << *heaviest << " ports";
}

} // namespace

TEST(FabricPartition, OnePartIsTheWholeFabricUncut) {
    const Topology t = test::fat_tree(8, 2).topology;
    const FabricPartition plan = partition_fabric(t, 1);
    EXPECT_EQ(plan.parts, 1u);
    EXPECT_EQ(plan.cut_links, 0u);
    expect_a_sound_plan(t, plan);
    EXPECT_THROW(partition_fabric(t, 0), std::invalid_argument);
}

TEST(FabricPartition, ATwoLevelTreeIsCutBetweenItsLeavesAndSpinesAlone) {
    const Topology t = test::fat_tree(16, 2).topology; // 512 hosts
    for (std::uint32_t parts : {2u, 3u, 4u}) {
        SCOPED_TRACE(parts);
        const FabricPartition plan = partition_fabric(t, parts);
        EXPECT_EQ(plan.parts, parts);
        expect_a_sound_plan(t, plan);
        // Every leaf reaches every spine alike: each spine's links cut but to its own part's leaves.
        std::uint64_t leaf_spine = 0;
        for (const std::uint32_t s : t.switches())
            if (t.devices()[s].level == 0)
                for (const auto& peer : t.devices()[s].ports)
                    if (peer && t.devices()[peer->device].kind != DeviceKind::host) ++leaf_spine;
        EXPECT_GT(plan.cut_links, 0u);
        EXPECT_LT(plan.cut_links, leaf_spine);
    }
}

TEST(FabricPartition, AThreeLevelTreeKeepsEachPodInOnePart) {
    const Topology t = test::fat_tree(4, 3).topology;
    const FabricPartition plan = partition_fabric(t, 2);
    expect_a_sound_plan(t, plan);
    // A middle switch goes with the leaves below it: all its links down stay in its part.
    for (const std::uint32_t s : t.switches()) {
        const Device& d = t.devices()[s];
        if (d.level != 1) continue;
        for (const auto& peer : d.ports) {
            if (!peer || t.devices()[peer->device].level != 0 || t.devices()[peer->device].kind == DeviceKind::host) continue;
            EXPECT_EQ(plan.part_of_device[peer->device], plan.part_of_device[s]) << d.name;
        }
    }
}

TEST(FabricPartition, AnImportedFabricIsCutAsTheTreeItWasWrittenFrom) {
    const Topology built = test::fat_tree(8, 2).topology;
    std::ostringstream text;
    write_ibnetdiscover(built, text);
    std::istringstream in(text.str());
    const Topology imported = parse_ibnetdiscover(in, "fabric.txt");
    const FabricPartition plan = partition_fabric(imported, 2);
    EXPECT_EQ(plan.parts, 2u);
    expect_a_sound_plan(imported, plan);
}

TEST(FabricPartition, NoMorePartsThanLeavesAndHostsBackToBackAreOnePart) {
    const Topology t = test::fat_tree(4, 2).topology;
    const auto leaves = static_cast<std::uint32_t>(
        std::count_if(t.switches().begin(), t.switches().end(), [&](std::uint32_t s) { return t.devices()[s].level == 0; }));
    const FabricPartition plan = partition_fabric(t, leaves + 5);
    EXPECT_EQ(plan.parts, leaves);
    expect_a_sound_plan(t, plan);

    Topology pair;
    const auto a = pair.add_device(DeviceKind::host, "a", 1), b = pair.add_device(DeviceKind::host, "b", 1);
    pair.connect({a, 0}, {b, 0});
    const FabricPartition one = partition_fabric(pair, 4);
    EXPECT_EQ(one.parts, 1u);
    EXPECT_EQ(one.cut_links, 0u);
    expect_a_sound_plan(pair, one);
}
