// A fabric cut into parts (SimOptions::parts) runs as one: every figure a traffic run reports,
// the event count among them, is the same for 1 to 4 parts run by one thread or by several, on a
// two- and a three-level tree, for every traffic pattern. A host's callback that acts on another
// part's host is refused.
#include "netsim/engine/sim_report.hpp"
#include "netsim/engine/traffic_run.hpp"
#include "netsim_test_apps.hpp"

#include <gtest/gtest.h>

#include <utility>

using namespace evb;
using namespace evb::netsim;

namespace {

// The report of a traffic run of `f` cut into `parts`, but its wall time.
nlohmann::json run_in_parts(const Fabric& f, std::uint32_t parts, const TrafficSpec& t, Picoseconds duration, std::uint32_t threads = 1) {
    SimOptions o = test::checked();
    o.parts = parts;
    o.threads = threads;
    {
        FabricSim sim(f.topology, f.routing, o); // the cut the run below gets: as many parts as asked
        EXPECT_EQ(sim.parts(), parts);
    }
    nlohmann::json j = traffic_result_json(f.topology, run_traffic(f, o, t, Picoseconds{}, duration));
    j.erase("wall_seconds");
    j.erase("sim_threads");
    return j;
}

TrafficSpec traffic_for_parts(TrafficPattern pattern, std::uint64_t bytes) {
    TrafficSpec t;
    t.pattern = pattern;
    t.message_bytes = bytes;
    t.depth = 4;
    t.seed = 3;
    t.send_window = Picoseconds(20'000'000);
    t.idle_window = Picoseconds(5'000'000);
    return t;
}

} // namespace

TEST(FabricParts, EveryFigureOfATrafficRunIsTheSameForOneToFourParts) {
    const Fabric two_levels = test::fat_tree(8), three_levels = test::fat_tree(4, 3);
    for (const Fabric* f : {&two_levels, &three_levels})
        for (TrafficPattern pattern :
             {TrafficPattern::linear, TrafficPattern::random, TrafficPattern::a2a, TrafficPattern::many_to_one, TrafficPattern::shift}) {
            const TrafficSpec t = traffic_for_parts(pattern, pattern == TrafficPattern::random ? 10'000 : 64 * 1024);
            const nlohmann::json one = run_in_parts(*f, 1, t, Picoseconds(60'000'000));
            ASSERT_GT(one["events"].get<std::uint64_t>(), 2'000u) << to_string(pattern);
            for (auto [parts, threads] : {std::pair{2u, 1u}, {3u, 1u}, {4u, 1u}, {2u, 2u}, {3u, 2u}, {4u, 4u}}) {
                const nlohmann::json differences = nlohmann::json::diff(one, run_in_parts(*f, parts, t, Picoseconds(60'000'000), threads));
                EXPECT_TRUE(differences.empty()) << to_string(pattern) << " on " << f->topology.hosts().size() << " hosts in " << parts
                                                 << " parts on " << threads << " threads: " << differences.size()
                                                 << " figures differ, the first " << (differences.empty() ? "" : differences[0].dump());
            }
        }
}

TEST(FabricParts, ARunOfAMessageCountEndsQuiescentInEveryPart) {
    const Fabric f = test::fat_tree(8);
    TrafficSpec t = traffic_for_parts(TrafficPattern::linear, 100'000);
    t.messages = 20;
    const nlohmann::json one = run_in_parts(f, 1, t, Picoseconds{}); // run_traffic verifies every credit back, nothing in flight
    EXPECT_EQ(one["messages_in_flight"], 0);
    EXPECT_EQ(run_in_parts(f, 3, t, Picoseconds{}), one);
    EXPECT_EQ(run_in_parts(f, 3, t, Picoseconds{}, 3), one);
}

namespace {
// Host 0's delivery posts from the last host, which a cut puts in another part.
struct PostsAcrossTheCut : test::Recorder {
    void delivered(FabricSim& sim, const SimMessage& m) override {
        Recorder::delivered(sim, m);
        sim.post(sim.hosts() - 1, 0, 4096, 0);
    }
};
} // namespace

TEST(FabricParts, AHostsCallbackThatPostsFromAHostOfAnotherPartIsRefused) {
    const Fabric f = test::fat_tree(8);
    SimOptions o = test::checked();
    o.parts = 2;
    FabricSim sim(f.topology, f.routing, o);
    ASSERT_NE(sim.part_of_host(0), sim.part_of_host(sim.hosts() - 1));
    PostsAcrossTheCut app;
    app.posts = {{1, 0, 4096}};
    try {
        sim.run(app, Picoseconds::max());
        FAIL() << "a post from another part's host was taken";
    } catch (const SimCheckError& e) {
        EXPECT_NE(std::string(e.what()).find("a message posted on host " + std::to_string(sim.hosts() - 1) +
                                             " from a callback of a host in another part"),
                  std::string::npos)
            << e.what();
    }
}

TEST(FabricParts, OptionsThatCannotBeCutAreRefused) {
    SimOptions o;
    o.parts = 2;
    o.mode = SimMode::flit;
    EXPECT_THROW(checked(o), std::invalid_argument);
    o.mode = SimMode::packet;
    o.ib.link_latency = Picoseconds{};
    EXPECT_THROW(checked(o), std::invalid_argument);
    o = SimOptions{};
    o.parts = 0;
    EXPECT_THROW(checked(o), std::invalid_argument);
    o.parts = 257;
    EXPECT_THROW(checked(o), std::invalid_argument);
    o.parts = 2;
    o.threads = 3;
    EXPECT_THROW(checked(o), std::invalid_argument);
    o.threads = 0;
    EXPECT_THROW(checked(o), std::invalid_argument);
}
