// The single-way layout (paper 003 fig. 3): R nodes only read out, B nodes only build, R and B
// may differ. Which rank hosts what, every event built from R fragments on local (every
// protocol), tcp processes and the simulator, and eq. 3.1's memory with the right N on each side.
#include "units/fragment_format.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "report/report.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sstream>

using namespace evb;
using namespace evb::test;

TEST(SplitLayout, ReadoutNodesComeFirstThenBuildersThenTheEm) {
    Layout l(5, 1, true, EmPlacement::own_rank, 3);
    EXPECT_EQ(l.ranks(), 6u);
    for (std::uint32_t i = 0; i < 3; ++i) {
        EXPECT_EQ(l.rank_of({Role::readout, i}), i);
        EXPECT_EQ(l.units_on(i).readout, i);
        EXPECT_FALSE(l.units_on(i).builder);
        EXPECT_EQ(l.node_of(i), i);
    }
    for (std::uint32_t j = 0; j < 2; ++j) {
        EXPECT_EQ(l.rank_of({Role::builder, j}), 3 + j);
        EXPECT_EQ(l.units_on(3 + j).builder, j);
        EXPECT_FALSE(l.units_on(3 + j).readout);
        EXPECT_EQ(l.node_of(3 + j), 3 + j);
    }
    EXPECT_EQ(l.rank_of({Role::manager, 0}), 5u);
    EXPECT_TRUE(l.units_on(5).manager);
    EXPECT_EQ(l.node_of(5), 5u);
}

namespace {

Config split(std::uint32_t r, std::uint32_t b, Protocol p) {
    Config c;
    c.layout = NodeLayout::split;
    c.readout_nodes = r;
    c.builder_nodes = b;
    c.nodes = r + b;
    c.protocol = p;
    c.credits = 2;
    c.parallel = 2;
    c.fragment_size = 4096;
    c.size_distribution = SizeDistribution::uniform;
    c.events = 61;
    c.duration = Picoseconds(0);
    c.verify = Verify::full;
    c.quiet = true;
    return c;
}

} // namespace

class SplitOnLocal : public ::testing::TestWithParam<std::tuple<Protocol, int, int>> {};

TEST_P(SplitOnLocal, EveryEventIsBuiltFromTheRReadoutNodesByTheBBuilders) {
    auto [protocol, r, b] = GetParam();
    Config c = split(static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(b), protocol);
    validate(c);
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    RunResult res = *run_in_process(c, LocalDriver().make_all(Layout::from_config(c).ranks()), console).result;
    ASSERT_FALSE(res.failure) << *res.failure;
    NodeStats sys = res.system();
    EXPECT_EQ(sys.errors.total(), 0u) << sys.errors.describe();
    EXPECT_EQ(sys.events_built, c.events);
    EXPECT_EQ(sys.fragments_in, c.events * c.readout_nodes); // R fragments per event
    FragmentSizer sizer(c);
    std::uint64_t bytes = 0;
    for (std::uint64_t e = 0; e < c.events; ++e)
        for (std::uint32_t s = 0; s < c.readout_nodes; ++s) bytes += sizer.size(e, s);
    EXPECT_EQ(sys.bytes_in, bytes);
    ASSERT_EQ(res.nodes.size(), c.nodes);
    for (std::uint32_t n = 0; n < c.readout_nodes; ++n) {
        EXPECT_EQ(res.nodes[n].events_built, 0u) << "readout node " << n;
        EXPECT_GT(res.nodes[n].bytes_out, 0u) << "readout node " << n;
        EXPECT_LE(res.nodes[n].peak_ru_bytes, std::uint64_t{c.safety_margin} * c.builder_nodes * c.credits * c.wire_fragment_stride());
    }
    for (std::uint32_t n = c.readout_nodes; n < c.nodes; ++n) {
        EXPECT_EQ(res.nodes[n].bytes_out, 0u) << "builder node " << n;
        EXPECT_GT(res.nodes[n].events_built, 0u) << "builder node " << n;
        EXPECT_LE(res.nodes[n].peak_bu_bytes, std::uint64_t{c.safety_margin} * c.readout_nodes * c.credits * c.wire_fragment_stride());
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, SplitOnLocal,
                         ::testing::Combine(::testing::Values(Protocol::pull, Protocol::push, Protocol::pull_no_em),
                                            ::testing::Values(3, 2), ::testing::Values(2, 3)),
                         [](const auto& i) {
                             std::string p = to_string(std::get<0>(i.param));
                             for (auto& ch : p)
                                 if (ch == '-') ch = '_';
                             return p + "_R" + std::to_string(std::get<1>(i.param)) + "_B" + std::to_string(std::get<2>(i.param));
                         });

TEST(SplitLayout, TcpProcessesAndTheSimulatorBuildEveryEvent) {
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"split_tcp", "--transport tcp --launch-local 5 --verify full"},
             {"split_tcp_push_em_own", "--transport tcp --launch-local 6 --em own --protocol push --verify full"},
             {"split_sim", "--transport sim"}}) {
        auto doc = run_evbench_json(args + " --layout split --readout-nodes 3 --builder-nodes 2 --events 300 --fragment-size 64KiB", name);
        ASSERT_FALSE(doc.is_null()) << name;
        EXPECT_EQ(doc["results"]["system"]["events_built"], 300) << name;
        EXPECT_EQ(doc["results"]["system"]["errors"], 0) << name;
        std::uint64_t fragments = 0;
        for (const auto& n : doc["results"]["nodes"]) fragments += n["raw"]["fragments_in"].get<std::uint64_t>();
        EXPECT_EQ(fragments, 300u * 3) << name;
    }
}

#ifdef EVB_HAVE_MPI
TEST(MpiTransport, SplitLayoutBuildsEveryEvent) {
    std::string json = temp_path("split_mpi.json");
    auto r = run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 5 " + evbench_binary() +
                             " --transport mpi --layout split --readout-nodes 2 --builder-nodes 3 --events 300 --fragment-size 64KiB"
                             " --verify full --quiet --json " +
                             json,
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["results"]["system"]["events_built"], 300);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}
#endif
