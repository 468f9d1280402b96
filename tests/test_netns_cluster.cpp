// The cluster in a box (tests/netns/cluster.sh): hosts in network namespaces joined by bridges,
// every link shaped with tc; evbench launched across them by mpirun as on a cluster.
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

using namespace evb::test;

namespace {

const std::string netns_script = std::string(EVBENCH_SOURCE_DIR) + "/tests/netns/cluster.sh";
const std::string netns_fabrics = std::string(EVBENCH_SOURCE_DIR) + "/tests/netns/fabrics/";

// Brings a fabric up for one test and down after it, whatever the test did.
class NetnsTestBed {
public:
    explicit NetnsTestBed(const std::string& fabric) {
        (void)run_command(netns_script + " down", 60);
        up_ = run_command(netns_script + " up " + netns_fabrics + fabric, 60);
    }
    ~NetnsTestBed() { (void)run_command(netns_script + " down", 60); }
    const CommandResult& up() const { return up_; }

private:
    CommandResult up_;
};

std::string on_host(const std::string& host, const std::string& command) { return netns_script + " exec " + host + " " + command; }

TEST(NetnsCluster, HostsReachEachOtherByNameThroughLinksNoFasterThanTheirRate) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    EXPECT_EQ(bed.up().out, "cluster.sh: 4 hosts (h1 h2 h3 h4) on 1 switches, 10.77.0.0/24\n");
    auto name = run_command(on_host("h3", "sh -c 'hostname; getent hosts h1'"), 30);
    ASSERT_EQ(name.exit_code, 0) << name.err;
    EXPECT_EQ(name.out, "h3\n10.77.0.1       h1\n");
    // iperf3 from h1 to h2: the token buckets hold the link to its 5 Gbit/s.
    auto server = run_command(on_host("h2", "iperf3 -s -D -1 -p 5201"), 30);
    ASSERT_EQ(server.exit_code, 0) << server.err;
    auto client = run_command(on_host("h1", "iperf3 -c h2 -p 5201 -t 2 -J"), 60);
    ASSERT_EQ(client.exit_code, 0) << client.err;
    const auto doc = nlohmann::json::parse(client.out);
    const double gbps = doc["end"]["sum_received"]["bits_per_second"].get<double>() / 1e9;
    EXPECT_GT(gbps, 0);
    EXPECT_LE(gbps, 5.0 * 1.02) << "the link is not shaped";
}

TEST(NetnsCluster, ASecondUpIsRefusedAndDownRemovesEverything) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    auto again = run_command(netns_script + " up " + netns_fabrics + "switch4.fabric", 60);
    EXPECT_EQ(again.exit_code, 1);
    EXPECT_NE(again.err.find("a fabric is up already"), std::string::npos) << again.err;
    auto down = run_command(netns_script + " down && ip netns list", 60);
    ASSERT_EQ(down.exit_code, 0) << down.err;
    EXPECT_EQ(down.out.find("evb-"), std::string::npos) << down.out;
    auto unknown = run_command(on_host("h9", "true"), 30);
    EXPECT_EQ(unknown.exit_code, 1);
    EXPECT_NE(unknown.err.find("no fabric is up"), std::string::npos) << unknown.err;
}

TEST(NetnsCluster, AFabricFileWithAFaultIsRefusedNamingItsLine) {
    const std::string bad = temp_path("bad.fabric");
    auto r = run_command("printf 'switch s1\\nhost h1\\nhost h2\\nlink h1 s1 fast\\n' > " + bad + " && " + netns_script + " up " + bad, 30);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "cluster.sh: " + bad + ":4: rate 'fast' is not tc's (e.g. 5gbit, 800mbit)\n");
    auto none = run_command("ip netns list", 30);
    EXPECT_EQ(none.out.find("evb-"), std::string::npos) << none.out;
}

// mpirun on h1 starts a rank on each host through the namespace launch agent; each rank listens on
// its own host's address, and the result names every rank's host.
TEST(NetnsCluster, MpirunAcrossTheHostsBuildsEveryEventAndNamesEachRanksHost) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_mpirun.json");
    auto r = run_command(on_host("h1", "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --mca plm_rsh_agent " +
                                      std::string(EVBENCH_SOURCE_DIR) + "/tests/netns/rsh.sh -H h1,h2,h3,h4 -np 4 " + evbench_binary() +
                                      " --transport tcp --bootstrap h1:7790 --events 300 --fragment-size 64KiB --verify full --json " + json),
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (int rank = 0; rank < 4; ++rank)   // the header says where each rank is
        EXPECT_TRUE(std::regex_search(r.out, std::regex("\n# rank " + std::to_string(rank) + " on h" + std::to_string(rank + 1) + " \\(10\\.77\\.0\\." +
                                                        std::to_string(rank + 1) + "\\) at h" + std::to_string(rank + 1) + ":\\d+: thread on ")))
            << r.out;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["results"]["system"]["events_built"], 300);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    EXPECT_EQ(doc["invocation"]["launcher"], "mpirun");
    std::set<std::string> hosts;
    for (const auto& rank : doc["origin"]["ranks"]) {
        hosts.insert(rank["host"].get<std::string>());
        EXPECT_EQ(rank["nic"], "eth0") << rank;
        EXPECT_EQ(rank["address"], "10.77.0." + rank["host"].get<std::string>().substr(1)) << rank;
    }
    EXPECT_EQ(hosts, (std::set<std::string>{"h1", "h2", "h3", "h4"}));
}

} // namespace

namespace {

// The test bed's fabric as an ibnetdiscover topology, as `evbench conflicts` reads it: on two
// leaves joined by one uplink, shift 2 sends both of a leaf's hosts across it (2 flows on the
// uplink: the 2:1 of the fabric file), shifts 1 and 3 one each way.
TEST(NetnsCluster, TheFabricAsATopologyIsWhatTheAnalyserReadsAndPredicts) {
    const std::string topo = temp_path("leaves2to1.net");
    auto written = run_command(netns_script + " topology " + netns_fabrics + "leaves2to1.fabric", 30);
    ASSERT_EQ(written.exit_code, 0) << written.err;
    std::ofstream(topo) << written.out;
    auto r = run_command(evbench_binary() + " conflicts --topology " + topo + " --routing minhop", 60);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("# 4 hosts, 2 switches, routing minhop"), std::string::npos) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+2\s+2\s+leaf1:3\n)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+1\s+1\s+\S+\n)"))) << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\s+3\s+1\s+\S+\n)"))) << r.out;
    EXPECT_EQ(count(written.out, "\nCa\t1 "), 4u);
    EXPECT_EQ(count(written.out, "\nSwitch\t3 "), 2u);
}

} // namespace
