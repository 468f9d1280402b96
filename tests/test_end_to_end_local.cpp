// Every protocol x scheduling on the in-process transport: each assigned event is built exactly
// once, every fragment's header and payload checksum verified, every byte accounted for.
#include "units/fragment_format.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "local_run.hpp"
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <tuple>

using namespace evb;
using evb::test::run_local;

namespace {

using Point = std::tuple<Protocol, Scheduling, std::uint32_t /*N*/, std::uint32_t /*credits*/, bool /*parallel N*/>;

class LocalEndToEnd : public ::testing::TestWithParam<Point> {};

TEST_P(LocalEndToEnd, EveryEventBuiltOnceAndVerified) {
    auto [protocol, scheduling, n, credits, parallel_n] = GetParam();
    Config c;
    c.protocol = protocol;
    c.scheduling = scheduling;
    c.nodes = n;
    c.credits = credits;
    c.parallel = parallel_n ? n : 1;
    c.fragment_size = 2048;
    c.size_distribution = SizeDistribution::uniform; // sizes differ per event and source
    c.events = 97; // not a multiple of N: exercises uneven ends
    c.duration = Picoseconds(0);
    c.verify = Verify::full;
    c.quiet = true;
    validate(c);
    std::ostringstream out;
    RunResult r = run_local(c, out);

    ASSERT_FALSE(r.failure) << *r.failure;
    NodeStats sys = r.system();
    EXPECT_EQ(sys.errors.total(), 0u) << sys.errors.describe();
    EXPECT_EQ(sys.events_assigned, c.events);
    EXPECT_EQ(sys.events_built, c.events);
    EXPECT_EQ(sys.fragments_in, c.events * n);
    EXPECT_EQ(sys.fragments_out, c.events * n);
    // Bytes: exactly the sum of every fragment the sizer defines, in and out.
    FragmentSizer sizer(c);
    std::uint64_t expected = 0;
    for (std::uint64_t e = 0; e < c.events; ++e)
        for (std::uint32_t s = 0; s < n; ++s) expected += sizer.size(e, s);
    EXPECT_EQ(sys.bytes_in, expected);
    EXPECT_EQ(sys.bytes_out, expected);
    // Memory in use never exceeds the eq. 3.1 budget.
    EXPECT_LE(sys.peak_ru_bytes, c.required_memory());
    EXPECT_LE(sys.peak_bu_bytes, c.required_memory());
    if (protocol == Protocol::pull_no_em) {
        // Event e is built by BU e mod N.
        for (std::uint32_t b = 0; b < n; ++b) EXPECT_EQ(r.nodes[b].events_built, (c.events - b + n - 1) / n) << "BU " << b;
    }
}

std::string point_name(const ::testing::TestParamInfo<Point>& info) {
    auto [protocol, scheduling, n, credits, parallel_n] = info.param;
    std::string p = to_string(protocol);
    for (auto& ch : p)
        if (ch == '-') ch = '_';
    return p + "_" + to_string(scheduling) + "_N" + std::to_string(n) + "_c" + std::to_string(credits) + "_p" + (parallel_n ? "N" : "1");
}

INSTANTIATE_TEST_SUITE_P(AllCombinations, LocalEndToEnd,
                         ::testing::Combine(::testing::Values(Protocol::pull, Protocol::push, Protocol::pull_no_em),
                                            ::testing::Values(Scheduling::barrel_shift, Scheduling::random),
                                            ::testing::Values(2u, 3u, 8u, 16u), ::testing::Values(1u, 4u), ::testing::Bool()),
                         point_name);

TEST(LocalEndToEnd, LayoutsWithPpn2AndOwnEmRank) {
    for (std::uint32_t ppn : {1u, 2u})
        for (EmPlacement em : {EmPlacement::rank0, EmPlacement::own_rank}) {
            Config c;
            c.nodes = 5;
            c.ppn = ppn;
            c.em = em;
            c.credits = 3;
            c.parallel = 2;
            c.fragment_size = 4096;
            c.events = 200;
            c.duration = Picoseconds(0);
            c.verify = Verify::full;
            c.quiet = true;
            std::ostringstream out;
            RunResult r = run_local(c, out);
            ASSERT_FALSE(r.failure);
            EXPECT_EQ(r.system().events_built, 200u) << "ppn " << ppn << " em " << to_string(em);
            EXPECT_EQ(r.system().errors.total(), 0u);
        }
}

TEST(LocalEndToEnd, DurationStopsTheRunAndDrains) {
    Config c;
    c.nodes = 3;
    c.fragment_size = 1024;
    c.duration = Picoseconds::from_seconds(0.2);
    c.quiet = true;
    std::ostringstream out;
    RunResult r = run_local(c, out);
    ASSERT_FALSE(r.failure);
    NodeStats sys = r.system();
    EXPECT_GT(sys.events_built, 0u);
    EXPECT_EQ(sys.events_built, sys.events_assigned); // drained: nothing left half-built
    EXPECT_EQ(sys.errors.total(), 0u);
}

} // namespace
