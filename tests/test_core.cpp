// Pure pieces of the core: quantities with units, layout, histogram, fragment format, validation.
#include "exec/run_config.hpp"
#include "units/fragment_format.hpp"
#include "core/index_pool.hpp"
#include "core/inline_ring.hpp"
#include "core/latency_histogram.hpp"
#include "units/layout.hpp"
#include "core/memory_pool.hpp"
#include "core/quantity.hpp"
#include "core/socket_util.hpp"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <vector>

using namespace evb;
using namespace evb::literals;

TEST(Quantity, SizesDurationsRates) {
    EXPECT_EQ(parse_size("1MiB"), 1048576u);
    EXPECT_EQ(parse_size("512KB"), 512000u);
    EXPECT_EQ(parse_size("64KiB"), 65536u);
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_THROW(parse_size("12 parsecs"), std::invalid_argument);
    EXPECT_THROW(parse_size("-1MiB"), std::invalid_argument);
    EXPECT_THROW(parse_size("1.5B"), std::invalid_argument);
    EXPECT_EQ(parse_duration("170ns"), 170_ns);
    EXPECT_EQ(parse_duration("2.5s"), 2500_ms);
    EXPECT_EQ(parse_duration("3"), 3_s);
    EXPECT_THROW(parse_duration("3 fortnights"), std::invalid_argument);
    EXPECT_DOUBLE_EQ(parse_rate_bps("100Gbps"), 100e9);
    EXPECT_EQ(format_size(1048576), "1MiB");
}

// The order out is the order in, across the ring's wrap and its move to the heap.
TEST(InlineRing, KeepsFifoOrderInsideItselfAndAfterSpillingToTheHeap) {
    InlineRing<int, 4> ring;
    int next_in = 0, next_out = 0;
    for (int round = 0; round < 10; ++round) { // fill to 3, drain to 0: wraps, never spills
        for (int i = 0; i < 3; ++i) ring.push(next_in++);
        ASSERT_EQ(ring.size(), 3u);
        EXPECT_EQ(ring.at(2), next_in - 1);
        for (; !ring.empty(); ring.pop()) ASSERT_EQ(ring.front(), next_out++);
    }
    EXPECT_FALSE(ring.spilled());
    ring.push(next_in++);
    for (int i = 0; i < 4; ++i) ring.push(next_in++); // the fifth item moves all to the heap
    EXPECT_TRUE(ring.spilled());
    ASSERT_EQ(ring.size(), 5u);
    for (std::size_t i = 0; i < ring.size(); ++i) EXPECT_EQ(ring.at(i), next_out + static_cast<int>(i));
    for (int i = 0; i < 40; ++i) ring.push(next_in++);
    ring.front() += 1000; // front() is the item itself
    EXPECT_EQ(ring.front(), next_out + 1000);
    ring.pop();
    ++next_out;
    for (; !ring.empty(); ring.pop()) ASSERT_EQ(ring.front(), next_out++);
    EXPECT_EQ(next_out, next_in);
}

// emplace builds the item from its fields in place: the same order as push, inside and spilled.
TEST(InlineRing, EmplaceKeepsFifoOrderInsideAndSpilled) {
    struct Item {
        std::int64_t a;
        std::int32_t b;
    };
    InlineRing<Item, 2> ring;
    ring.emplace(std::int64_t{1}, std::int32_t{10});
    ring.push(Item{2, 20});
    EXPECT_FALSE(ring.spilled());
    ring.emplace(std::int64_t{3}, std::int32_t{30}); // the third spills
    EXPECT_TRUE(ring.spilled());
    for (std::int64_t i = 1; i <= 3; ++i, ring.pop()) {
        ASSERT_EQ(ring.front().a, i);
        ASSERT_EQ(ring.front().b, 10 * i);
    }
    EXPECT_TRUE(ring.empty());
}

// What an index points to stays as it was added until it is taken, and a taken slot is the next
// one handed out (the pool holds no more than were live at once).
TEST(IndexPool, KeepsEachValueUntilTakenAndReusesItsSlot) {
    IndexPool<std::uint64_t> pool;
    const std::uint32_t a = pool.add(11), b = pool.add(22), c = pool.add(33);
    EXPECT_EQ((std::vector<std::uint32_t>{a, b, c}), (std::vector<std::uint32_t>{0, 1, 2}));
    EXPECT_EQ(pool.take(b), 22u);
    EXPECT_EQ(pool[a], 11u);
    EXPECT_EQ(pool[c], 33u);
    const std::uint32_t d = pool.add(44);
    EXPECT_EQ(d, b);
    EXPECT_EQ(pool[d], 44u);
    pool.release(a);
    pool[c] = 55;
    EXPECT_EQ(pool.add(66), a);
    EXPECT_EQ(pool.add(77), 3u); // no slot free: a new one
    EXPECT_EQ(pool.take(c), 55u);
}

TEST(Layout, FoldedPpn1And2WithEmPlacement) {
    Layout a(4, 1, true, EmPlacement::rank0);
    EXPECT_EQ(a.ranks(), 4u);
    EXPECT_EQ(a.rank_of({Role::readout, 2}), 2u);
    EXPECT_EQ(a.rank_of({Role::builder, 2}), 2u);
    EXPECT_TRUE(a.units_on(0).manager);
    Layout b(4, 2, true, EmPlacement::own_rank);
    EXPECT_EQ(b.ranks(), 9u);
    EXPECT_EQ(b.rank_of({Role::readout, 3}), 6u);
    EXPECT_EQ(b.rank_of({Role::builder, 3}), 7u);
    EXPECT_EQ(b.rank_of({Role::manager, 0}), 8u);
    auto u = b.units_on(8);
    EXPECT_TRUE(u.manager);
    EXPECT_FALSE(u.readout);
    EXPECT_FALSE(u.builder);
    EXPECT_EQ(Layout::nodes_for_ranks(9, 2, true, EmPlacement::own_rank), 4u);
    EXPECT_THROW(Layout::nodes_for_ranks(4, 2, true, EmPlacement::own_rank), ConfigError);
    Layout c(3, 1, false, EmPlacement::own_rank); // no EM: no extra rank
    EXPECT_EQ(c.ranks(), 3u);
}

TEST(Layout, PerUnitEndpointsAreNumberedRankByRankInTheOrderRuBuEm) {
    Layout a(2, 1, true, EmPlacement::rank0);
    a.set_endpoint_per_unit(true);
    EXPECT_EQ(a.ranks(), 2u);
    EXPECT_EQ(a.endpoints(), 5u); // rank 0: RU 0, BU 0, EM; rank 1: RU 1, BU 1
    EXPECT_EQ(a.endpoint_of({Role::readout, 0}), 0u);
    EXPECT_EQ(a.endpoint_of({Role::builder, 0}), 1u);
    EXPECT_EQ(a.endpoint_of({Role::manager, 0}), 2u);
    EXPECT_EQ(a.endpoint_of({Role::readout, 1}), 3u);
    EXPECT_EQ(a.endpoint_of({Role::builder, 1}), 4u);
    const std::vector<std::uint32_t> rank_of = {0, 0, 0, 1, 1};
    for (std::uint32_t e = 0; e < 5; ++e) EXPECT_EQ(a.rank_of_endpoint(e), rank_of[e]) << e;
    EXPECT_EQ(a.first_endpoint_of(1), 3u);
    EXPECT_EQ(a.endpoints_of(0), 3u);
    EXPECT_EQ(a.endpoints_of(1), 2u);
    EXPECT_EQ(units_text(a.units_on_endpoint(2)), "EM");
    EXPECT_EQ(units_text(a.units_on_endpoint(4)), "BU 1");
    // ppn 2 and an EM of its own: already one unit per rank, so endpoints are ranks.
    Layout b(2, 2, true, EmPlacement::own_rank);
    b.set_endpoint_per_unit(true);
    EXPECT_EQ(b.endpoints(), b.ranks());
    for (std::uint32_t r = 0; r < b.ranks(); ++r) EXPECT_EQ(b.first_endpoint_of(r), r);
    EXPECT_EQ(b.endpoint_of({Role::manager, 0}), 4u);
    // Without per-unit an endpoint is a rank, whatever it hosts.
    Layout c(2, 1, true, EmPlacement::rank0);
    EXPECT_EQ(c.endpoints(), 2u);
    EXPECT_EQ(c.endpoint_of({Role::manager, 0}), 0u);
    EXPECT_EQ(units_text(c.units_on_endpoint(0)), "RU 0 + BU 0 + EM");
}

TEST(LatencyHistogram, PercentilesWithinBucketError) {
    LatencyHistogram h;
    for (int i = 1; i <= 1000; ++i) h.record(Picoseconds(std::int64_t{i} * 1000'000)); // 1..1000 us
    EXPECT_EQ(h.count(), 1000u);
    EXPECT_NEAR(h.mean_us(), 500.5, 0.01);
    EXPECT_NEAR(h.percentile_us(50), 500, 500 * 0.04);
    EXPECT_NEAR(h.percentile_us(99), 990, 990 * 0.04);
    EXPECT_DOUBLE_EQ(h.max_us(), 1000);
    auto copy = LatencyHistogram::from_json(h.to_json());
    EXPECT_EQ(copy.count(), 1000u);
    EXPECT_DOUBLE_EQ(copy.percentile_us(99), h.percentile_us(99));
}

TEST(FragmentFormat, GeneratedFragmentsVerifyAndCorruptionIsCaught) {
    Config c;
    c.nodes = 3;
    c.fragment_size = 64 * 1024;
    c.size_distribution = SizeDistribution::lognormal;
    c.size_spread = 0.3;
    FragmentSizer sizer(c);
    FragmentGenerator gen(2, sizer.max_size(), sizer.max_size());
    std::vector<std::byte> block(sizer.max_size());
    gen.prefill(block.data());
    for (std::uint64_t e = 0; e < 50; ++e) {
        std::uint32_t size = sizer.size(e, 2);
        ASSERT_EQ(size % 8, 0u);
        ASSERT_LE(size, sizer.max_size());
        gen.stamp(block.data(), e, size);
        EXPECT_EQ(check_fragment(block.data(), e, 2, size, true), FragmentCheck::ok) << "event " << e;
        EXPECT_EQ(check_fragment(block.data(), e + 1, 2, size, false), FragmentCheck::bad_header);
        EXPECT_EQ(check_fragment(block.data(), e, 1, size, false), FragmentCheck::bad_header);
        block[fragment_header_size + size / 2] ^= std::byte{0x40};
        EXPECT_EQ(check_fragment(block.data(), e, 2, size, false), FragmentCheck::ok); // header only
        EXPECT_EQ(check_fragment(block.data(), e, 2, size, true), FragmentCheck::bad_payload);
        block[fragment_header_size + size / 2] ^= std::byte{0x40};
    }
}

// The simulated transport keeps only 64 B of each fragment in memory: the header it stamps must
// be the one a whole fragment gets, checksum included.
TEST(FragmentFormat, HeaderOnlyBlocksCarryTheWholeFragmentsHeader) {
    Config c;
    c.nodes = 2;
    c.fragment_size = 1 << 20;
    c.size_distribution = SizeDistribution::uniform;
    FragmentSizer sizer(c);
    FragmentGenerator whole(1, sizer.max_size(), sizer.max_size()), header_only(1, sizer.max_size(), 64);
    std::vector<std::byte> big(sizer.max_size()), small(64);
    whole.prefill(big.data());
    header_only.prefill(small.data());
    for (std::uint64_t e = 0; e < 20; ++e) {
        std::uint32_t size = sizer.size(e, 1);
        whole.stamp(big.data(), e, size);
        header_only.stamp(small.data(), e, size);
        EXPECT_EQ(std::memcmp(big.data(), small.data(), fragment_header_size + 8), 0) << "event " << e;
        EXPECT_EQ(check_fragment(small.data(), e, 1, size, false), FragmentCheck::ok);
    }
    c.fragment_memory = 64;
    EXPECT_EQ(c.fragment_stride(), 64u);
    EXPECT_EQ(c.wire_fragment_stride(), std::uint64_t{sizer.max_size() + 63} / 64 * 64);
    EXPECT_EQ(c.ru_buffer_fragments(), std::uint64_t{2} * 2 * 2); // m N c
}

TEST(FragmentSizer, ScaleFactorsAndDistributionsStayInBounds) {
    Config c;
    c.nodes = 3;
    c.fragment_size = 10000;
    c.ru_scale = {0.5, 0.875, 1.0}; // 40, 70, 80 Gb/s nodes
    FragmentSizer fixed(c);
    EXPECT_EQ(fixed.size(7, 0), 5000u);
    EXPECT_EQ(fixed.size(7, 1), 8752u); // 8750 rounded up to whole words
    c.size_distribution = SizeDistribution::normal;
    FragmentSizer normal(c);
    double sum = 0;
    for (std::uint64_t e = 0; e < 20000; ++e) {
        auto s = normal.size(e, 2);
        ASSERT_LE(s, normal.max_size());
        sum += s;
    }
    EXPECT_NEAR(sum / 20000, 10000, 100); // mean preserved within 1%
}

TEST(Config, ValidationNamesTheProblem) {
    Config c;
    c.nodes = 4;
    EXPECT_NO_THROW(validate(c));
    auto message = [](Config bad) {
        try {
            validate(bad);
        } catch (const ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    Config n1 = c;
    n1.nodes = 1;
    EXPECT_NE(message(n1).find("--nodes must be at least 2"), std::string::npos);
    Config p = c;
    p.parallel = 5;
    EXPECT_NE(message(p).find("--parallel (5) must not exceed --nodes (4)"), std::string::npos);
    Config m = c;
    m.memory = 1 << 20;
    EXPECT_NE(message(m).find("eq. 3.1"), std::string::npos);
    Config f = c;
    f.fragment_size = 8;
    EXPECT_NE(message(f).find("--fragment-size"), std::string::npos);
}

// A simulated run's pools: blocks loaned newest-first, never-used ones in index order, and
// nothing touched before it is loaned (the pages of blocks never used stay unbacked).
TEST(MemoryPool, OnDemandLoansTheNewestBlockAndTouchesOnlyWhatIsLoaned) {
    evb::MemoryPool pool(4096, 1000, evb::PoolMemory{-1, evb::HugePages::off, true});
    EXPECT_EQ(pool.touched(), 0u);
    EXPECT_EQ(pool.acquire(), 0u);
    EXPECT_EQ(pool.acquire(), 1u);
    EXPECT_EQ(pool.acquire(), 2u);
    pool.release(1);
    pool.release(0);
    EXPECT_EQ(pool.in_use(), 1u);
    EXPECT_EQ(pool.acquire(), 0u); // the last released
    EXPECT_EQ(pool.acquire(), 1u);
    EXPECT_EQ(pool.acquire(), 3u); // then the next never used
    EXPECT_EQ(pool.touched(), 4u);
    EXPECT_EQ(pool.peak_in_use(), 4u);
    for (std::uint32_t i = 4; i < 1000; ++i) EXPECT_EQ(pool.acquire(), i);
    EXPECT_FALSE(pool.acquire().has_value());
    // A pool touched from the start loans in rotation (FIFO), as before.
    evb::MemoryPool eager(64, 3, evb::PoolMemory{-1, evb::HugePages::off});
    EXPECT_EQ(eager.touched(), 3u);
    EXPECT_EQ(eager.acquire(), 0u);
    eager.release(0);
    EXPECT_EQ(eager.acquire(), 1u);
}

// Resident memory of an on-demand pool follows the blocks loaned, not its size (mincore).
TEST(MemoryPool, OnDemandPagesAreBackedOnlyOnceLoanedAndWritten) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    evb::MemoryPool pool(page, 256, evb::PoolMemory{-1, evb::HugePages::off, true});
    auto resident = [&] {
        std::vector<unsigned char> v(256);
        EXPECT_EQ(mincore(pool.data(), pool.size(), v.data()), 0);
        return std::count_if(v.begin(), v.end(), [](unsigned char c) { return c & 1; });
    };
    EXPECT_EQ(resident(), 0);
    for (int i = 0; i < 3; ++i) std::memset(pool.block(*pool.acquire()), 1, page);
    EXPECT_EQ(resident(), 3);
}

// A DSCP is the traffic class's upper six bits, on IPv4 (IP_TOS) and IPv6 (IPV6_TCLASS) alike.
TEST(SetDscp, MarksIPv4AndIPv6SocketsAndRefusesWhatIsNoDscp) {
    for (const int family : {AF_INET, AF_INET6}) {
        const int fd = socket(family, SOCK_STREAM, 0);
        if (fd < 0 && family == AF_INET6) continue; // a host without IPv6
        ASSERT_GE(fd, 0);
        ClosesFd closes(fd);
        set_dscp(fd, 46);
        int traffic_class = 0;
        socklen_t len = sizeof traffic_class;
        ASSERT_EQ(
            getsockopt(fd, family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6, family == AF_INET ? IP_TOS : IPV6_TCLASS, &traffic_class, &len),
            0);
        EXPECT_EQ(traffic_class, 46 << 2);
        EXPECT_THROW(set_dscp(fd, 64), std::invalid_argument);
    }
}
