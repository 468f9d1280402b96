// A rank's origin as a peer sends it to rank 0: read back whole, refused when out of bounds, and
// gathered into a result's "origin" with each host once and each rank's environment by difference.
#include "core/rank_origin.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace evb;

namespace {

RankOrigin sample_origin(std::uint32_t rank) {
    RankOrigin o;
    o.rank = rank;
    o.host = "node" + std::to_string(rank / 2);
    o.pid = 1000 + rank;
    o.kernel = "Linux 6.1.0 #1 SMP";
    o.cpu_model = "Some CPU @ 2.10GHz";
    o.nic = "mlx5_0";
    o.nic_driver = "mlx5_core";
    o.nic_firmware = "16.35.1012";
    o.address = "10.0.0." + std::to_string(rank + 1);
    o.environment = {{"UCX_TLS", "rc"}, {"OMPI_COMM_WORLD_RANK", std::to_string(rank)}};
    return o;
}

TEST(RankOrigin, ReadsBackWhatItWrote) {
    const RankOrigin o = sample_origin(3);
    const RankOrigin back = RankOrigin::from_json(o.to_json());
    EXPECT_EQ(back.to_json(), o.to_json());
}

TEST(RankOrigin, APeersRecordOutOfBoundsIsRefusedNamingTheField) {
    auto refused = [](const nlohmann::json& j) {
        try {
            (void)RankOrigin::from_json(j);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    auto j = sample_origin(1).to_json();
    auto long_host = j;
    long_host["host"] = std::string(5000, 'h');
    EXPECT_EQ(refused(long_host), "the field 'host' is longer than 1024 bytes");
    auto secret = j;
    secret["environment"]["EVBENCH_RUN_KEY"] = "0123456789abcdef0123456789abcdef";
    EXPECT_EQ(refused(secret), "the field 'environment' holds a variable evbench does not record");
    auto path = j;
    path["environment"]["PATH"] = "/bin";
    EXPECT_EQ(refused(path), "the field 'environment' holds a variable evbench does not record");
    auto number = j;
    number["environment"]["UCX_TLS"] = 7;
    EXPECT_EQ(refused(number), "the field 'UCX_TLS' is not a string");
    auto many = j;
    for (int i = 0; i < 1100; ++i) many["environment"]["FI_X" + std::to_string(i)] = "1";
    EXPECT_EQ(refused(many), "the field 'environment' has more than 1024 variables");
    auto pid = j;
    pid["pid"] = 1e300;
    EXPECT_EQ(refused(pid), "the field 'pid' is not a 64-bit integer");
    auto missing = j;
    missing.erase("kernel");
    EXPECT_EQ(refused(missing), "the field 'kernel' is missing");
}

TEST(RankOrigin, AResultNamesEachHostOnceAndEachRanksEnvironmentByDifference) {
    std::vector<RankOrigin> ranks{sample_origin(0), sample_origin(1), sample_origin(2)};
    ranks[2].environment.erase("UCX_TLS");
    ranks[2].cpu_model = "Another CPU";
    const auto j = origins_json(ranks);
    EXPECT_EQ(j["hosts"].size(), 2u);
    EXPECT_EQ(j["hosts"]["node0"]["cpu_model"], "Some CPU @ 2.10GHz");
    EXPECT_EQ(j["hosts"]["node1"]["cpu_model"], "Another CPU");
    EXPECT_EQ(j["ranks"].size(), 3u);
    EXPECT_EQ(j["ranks"][2]["host"], "node1");
    EXPECT_EQ(j["ranks"][1]["pid"], 1001);
    EXPECT_EQ(j["environment"]["UCX_TLS"], "rc");
    EXPECT_EQ(j["environment_differs"]["1"], nlohmann::json({{"OMPI_COMM_WORLD_RANK", "1"}}));
    EXPECT_EQ(j["environment_differs"]["2"], nlohmann::json({{"OMPI_COMM_WORLD_RANK", "2"}, {"UCX_TLS", nullptr}}));
}

TEST(RankOrigin, ThisProcessRecordsTheSteeringVariablesButNoSecret) {
    setenv("FI_PROVIDER_TEST_ORIGIN", "tcp", 1);
    setenv("EVBENCH_RUN_KEY", "0123456789abcdef0123456789abcdef", 1);
    setenv("HOME_TEST_ORIGIN", "/root", 1);
    const RankOrigin o = this_process_origin(std::nullopt, NicName{"", "lo"});
    unsetenv("EVBENCH_RUN_KEY");
    EXPECT_EQ(o.environment.at("FI_PROVIDER_TEST_ORIGIN"), "tcp");
    EXPECT_FALSE(o.environment.contains("EVBENCH_RUN_KEY"));
    EXPECT_FALSE(o.environment.contains("HOME_TEST_ORIGIN"));
    EXPECT_EQ(o.nic, "lo");
    EXPECT_FALSE(o.rank.has_value());
    EXPECT_GT(o.pid, 0);
    EXPECT_EQ(o.kernel.rfind("Linux ", 0), 0u) << o.kernel;
}

} // namespace
