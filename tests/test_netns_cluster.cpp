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

// mpirun on h1 across the hosts `hosts` (-H), through the namespaces' launch agent.
std::string bed_mpirun(const std::string& hosts, int ranks, const std::string& command) {
    return on_host("h1",
                   "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --mca plm_rsh_agent " +
                       std::string(EVBENCH_SOURCE_DIR) + "/tests/netns/rsh.sh -H " + hosts + " -np " + std::to_string(ranks) + " " +
                       command);
}

// A run of one rank per host h1..h4 says in its header where each rank is.
void expect_each_rank_on_its_host(const std::string& out) {
    for (int rank = 0; rank < 4; ++rank)
        EXPECT_TRUE(
            std::regex_search(out,
                              std::regex("\n# rank " + std::to_string(rank) + " on h" + std::to_string(rank + 1) + " \\(10\\.77\\.0\\." +
                                         std::to_string(rank + 1) + "\\) at h" + std::to_string(rank + 1) + ":\\d+: thread on ")))
            << out;
}

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
    auto r =
        run_command(bed_mpirun("h1,h2,h3,h4", 4,
                               evbench_binary() +
                                   " --transport tcp --bootstrap h1:7790 --events 300 --fragment-size 64KiB --verify full --json " + json),
                    120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    expect_each_rank_on_its_host(r.out);
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

// The rates' one definition on real links (docs/output.md): what crossed the network stays
// within each host's 5 Gbit/s link, while what was built counts each node's own fragment too
// (4 nodes: 4/3 of it).
TEST(NetnsCluster, NoNodeMovesMoreOverTheNetworkThanItsLinkCarriesAndBuiltCountsItsOwnFragment) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_rates.json");
    auto r = run_command(bed_mpirun("h1,h2,h3,h4", 4,
                                    evbench_binary() +
                                        " --transport tcp --bootstrap h1:7791 --protocol push --credits 4 "
                                        "--fragment-size 256KiB --duration 3s --quiet --json " +
                                        json),
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    for (const auto& node : doc["results"]["nodes"]) {
        EXPECT_GT(node["in_gbps"].get<double>(), 1.0) << "the links must be busy for the bound to mean something: " << node;
        EXPECT_LE(node["in_gbps"].get<double>(), 5.0 * 1.02) << node;
        EXPECT_LE(node["out_gbps"].get<double>(), 5.0 * 1.02) << node;
        EXPECT_NEAR(node["built_gbps"].get<double>() / node["in_gbps"].get<double>(), 4.0 / 3, 0.03) << node;
    }
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

namespace {

// Faults across hosts: mpirun on h1 starts 2 ranks per host (--ppn 2: rank 6 is RU 3 and rank 7
// BU 3, both on h4); once rank 0 printed its first progress line (not mpirun's own "[h1:PID]"
// warnings, which the same output carries), `fault` runs on the bed, and
// once rank 0 printed its report or its error (or mpirun ended), `after`. The output is mpirun's, then "mpirun rc=N".
CommandResult run_with_fault(const std::string& flags, const std::string& json, const std::string& fault,
                             const std::string& after = "true") {
    const std::string script = "out=$(mktemp); " +
        bed_mpirun("h1:2,h2:2,h3:2,h4:2", 8,
                   evbench_binary() + " --transport tcp --bootstrap h1:7792 --ppn 2 --credits 4 --fragment-size 64KiB " +
                       "--progress-interval 250ms --json " + json + " " + flags) +
        " >$out 2>&1 & m=$!; "
        "for i in $(seq 600); do grep -qE '^\\[ *[0-9.]+ s\\] events' $out && break; sleep 0.1; done; " +
        fault +
        "; "
        "for i in $(seq 600); do grep -qE '^(# system|evbench.rank 0.: error)' $out && break; kill -0 $m 2>/dev/null || break; sleep 0.1; "
        "done; " +
        after +
        "; "
        "wait $m; echo \"mpirun rc=$?\" >>$out; cat $out";
    return run_command("bash -c \"$(cat <<'SCRIPT'\n" + script + "\nSCRIPT\n)\"", 180);
}

// A cable cut mid-run (the host's port on its switch down): with --on-failure continue rank 0
// finds h4's two ranks by the heartbeat, the run goes on without them and reports them lost from
// when it last heard them; h4's ranks, cut off, end with one line each.
TEST(NetnsCluster, ACutCableIsFoundByTheHeartbeatAndTheRunGoesOnWithoutTheHost) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_cut.json");
    auto r =
        run_with_fault("--duration 4s --heartbeat 1s --on-failure continue", json, netns_script + " cut h4", netns_script + " mend h4");
    for (const char* lost : {"# lost: rank 6 (RU 3) at ", "# lost: rank 7 (BU 3) at "})
        EXPECT_NE(r.out.find(lost), std::string::npos) << r.out;
    // Each lost from when rank 0 last heard it.
    EXPECT_EQ(count(r.out, "(--heartbeat)\n# lost: rank 7") + count(r.out, "(--heartbeat)\n# failures:"), 2u) << r.out;
    for (int rank : {6, 7})
        EXPECT_EQ(
            count(r.out,
                  "evbench[rank " + std::to_string(rank) + "]: error: lost contact with rank 0: it sent nothing for 1 s (--heartbeat)\n"),
            1u)
            << r.out;
    EXPECT_NE(r.out.find("errors: none"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("mpirun rc=3"), std::string::npos) << r.out; // rank 0: data of a lost RU is missing
    const auto doc = nlohmann::json::parse(read_file(json));
    const auto& failures = doc["results"]["failures"];
    EXPECT_GT(failures["events_incomplete"].get<double>(), 0) << failures;
    ASSERT_EQ(failures["nodes_lost"].size(), 2u) << failures;
    for (const auto& lost : failures["nodes_lost"]) {
        ASSERT_TRUE(lost["failed_s"].is_number()) << lost; // last heard
        EXPECT_GE(lost["detected_s"].get<double>() - lost["failed_s"].get<double>(), 1.0) << lost;
    }
    // The rate before the loss is measured before the cable was cut, not over the stall after it.
    if (failures["rate_before_hz"].is_number()) {
        EXPECT_GT(failures["rate_before_hz"].get<double>(), 0) << failures;
    }
}

// Without --on-failure continue the same cut ends the run: rank 0 names the silent rank in one
// line, and h4's ranks end with theirs.
TEST(NetnsCluster, ACutCableWithoutContinueEndsTheRunWithOneLinePerRank) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    auto r = run_with_fault("--duration 20s --heartbeat 1s", temp_path("netns_cut_stop.json"), netns_script + " cut h4",
                            netns_script + " mend h4");
    EXPECT_TRUE(
        std::regex_search(r.out, std::regex(R"(evbench\[rank 0\]: error: [^\n]*rank [67][^\n]*sent nothing for 1 s \(--heartbeat\)\n)")))
        << r.out;
    for (int rank : {6, 7}) EXPECT_EQ(count(r.out, "evbench[rank " + std::to_string(rank) + "]: error: "), 1u) << r.out;
    EXPECT_EQ(r.out.find("# system:"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("mpirun rc=0"), std::string::npos) << r.out;
}

// A link shaped to a tenth of its rate mid-run: nothing is lost and the run ends as configured,
// at the pace of the slow host's readout unit: every event needs its fragment, so every builder
// then receives at most what that link carries (RU 3 sends 3 of its 4 fragments over it).
TEST(NetnsCluster, ALinkSlowedToATenthMidRunSlowsEveryBuilderToItsPaceAndLosesNothing) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_slow.json");
    auto r = run_with_fault("--duration 4s --protocol push", json, netns_script + " shape h4 500mbit");
    EXPECT_NE(r.out.find("mpirun rc=0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("errors: none"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_FALSE(doc["results"].contains("failures")) << doc["results"];
    for (const auto& node : doc["results"]["nodes"]) EXPECT_GT(node["events_built"].get<double>(), 0) << node;
    // The last progress line: no faster than the slow link allows (every event needs RU 3's
    // fragment, which crosses it for 3 builders of 4, so each builder receives over the network
    // at most the link's 0.5 Gbit/s, its token bucket's burst aside; unshaped, the bed gives some 4).
    std::vector<double> rates;
    const std::regex line(R"(\n\[ *[0-9.]+ s\] events +\d+ +rate +[0-9.]+ Hz +in +([0-9.]+) Gb/s/node)");
    for (std::sregex_iterator i(r.out.begin(), r.out.end(), line), end; i != end; ++i) rates.push_back(std::stod((*i)[1]));
    ASSERT_GE(rates.size(), 8u) << r.out;
    EXPECT_LE(rates.back(), 0.5 * 1.1) << r.out;
}

} // namespace

namespace {

// Slurm as on a cluster: a slurmd on each host and slurmctld on h1 (tests/slurm/cluster.sh start
// DIR --netns), srun from h1; each rank finds rank 0's host, the job's first node, by itself.
TEST(NetnsCluster, SrunAcrossTheHostsWithASlurmdEachBuildsEveryEventAndNamesEachRanksHost) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string slurm = std::string(EVBENCH_SOURCE_DIR) + "/tests/slurm/cluster.sh";
    const std::string dir = temp_path("netns_slurm");
    struct Stop { // before the bed goes down
        std::string command;
        ~Stop() { (void)run_command(command, 60); }
    } stop{slurm + " stop " + dir};
    auto started = run_command(slurm + " start " + dir + " --netns", 90);
    ASSERT_EQ(started.exit_code, 0) << started.out << started.err;
    const std::string json = temp_path("netns_srun.json");
    auto r = run_command(on_host("h1",
                                 "env SLURM_CONF=" + dir + "/slurm.conf srun -N4 -n4 " + evbench_binary() +
                                     " --transport tcp --events 300 --fragment-size 64KiB --verify full --json " + json),
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    expect_each_rank_on_its_host(r.out);
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["results"]["system"]["events_built"], 300);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    EXPECT_EQ(doc["invocation"]["launcher"], "srun");
}

} // namespace

namespace {

// evbench's own launcher on each host (--launch-local N --launch-hosts M --host-index I), as
// without mpirun or Slurm: every host's launcher starts at once, each writes to its own file;
// once rank 0 printed its first progress line, `fault` runs on the bed. The output is each
// host's, after "== hI rc=N".
CommandResult run_on_each_host(int hosts, int per_host, const std::string& flags, const std::string& fault = "true") {
    const std::string key = temp_path("netns_run.key");
    std::ofstream(key) << "a secret every host of the bed shares, 48 characters\n";
    const std::string launcher = evbench_binary() + " --transport tcp --launch-local " + std::to_string(per_host) + " --launch-hosts " +
        std::to_string(hosts) + " --bootstrap h1:7794 --run-key-file " + key + " " + flags;
    const std::string script = "chmod 600 " + key + "; dir=$(mktemp -d); for i in $(seq " + std::to_string(hosts) + "); do " +
        netns_script + " exec h$i " + launcher +
        " --host-index $((i - 1)) >$dir/h$i 2>&1 & pid[$i]=$!; done; "
        "for i in $(seq 600); do grep -qE '^\\[ *[0-9.]+ s\\] events' $dir/h1 && break; kill -0 ${pid[1]} 2>/dev/null || break; sleep 0.1; "
        "done; " +
        fault +
        "; "
        "for i in $(seq " +
        std::to_string(hosts) + "); do wait ${pid[$i]}; echo \"== h$i rc=$?\"; cat $dir/h$i; done; rm -r $dir";
    return run_command("bash -c \"$(cat <<'SCRIPT'\n" + script + "\nSCRIPT\n)\"", 180);
}

// Two hosts of two ranks each, joined through the bootstrap on h1's address: the header names each
// rank's host and address, and every event is built and checked.
TEST(NetnsCluster, TheLocalLauncherOnEachHostJoinsOneRunThroughTheBootstrapOnTheFirstHost) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_hosts.json");
    auto r = run_on_each_host(2, 2, "--events 300 --fragment-size 64KiB --verify full --json " + json);
    EXPECT_NE(r.out.find("== h1 rc=0\n"), std::string::npos) << r.out;
    EXPECT_TRUE(r.out.ends_with("\n== h2 rc=0\n")) << r.out; // the second host prints nothing of its own
    for (int rank = 0; rank < 4; ++rank) {
        const std::string host = rank < 2 ? "1" : "2";
        EXPECT_TRUE(std::regex_search(r.out,
                                      std::regex("\n# rank " + std::to_string(rank) + " on h" + host + " \\(10\\.77\\.0\\." + host +
                                                 "\\) at h" + host + ":\\d+: thread on ")))
            << r.out;
    }
    const auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["results"]["system"]["events_built"], 300);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    EXPECT_EQ(doc["invocation"]["launcher"], "evbench --launch-local");
}

// A host's processes killed mid-run (h3: rank 4 is RU 2, rank 5 BU 2): with --on-failure continue
// rank 0 reports both lost and the run goes on to its end on the other hosts.
TEST(NetnsCluster, AHostWhoseProcessesAreKilledIsLeftBehindAndTheRunGoesOn) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    const std::string json = temp_path("netns_killed.json");
    auto r = run_on_each_host(
        4, 2,
        "--ppn 2 --credits 4 --fragment-size 64KiB --progress-interval 250ms --duration 4s --heartbeat 1s --on-failure continue --json " +
            json,
        netns_script + " kill h3");
    EXPECT_NE(r.out.find("== h1 rc=3\n"), std::string::npos) << r.out; // data of a lost RU is missing
    for (const char* host : {"h2", "h4"}) EXPECT_NE(r.out.find(std::string("== ") + host + " rc=0\n"), std::string::npos) << r.out;
    for (const char* lost : {"# lost: rank 4 (RU 2) at ", "# lost: rank 5 (BU 2) at "})
        EXPECT_NE(r.out.find(lost), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("errors: none"), std::string::npos) << r.out;
    const auto doc = nlohmann::json::parse(read_file(json));
    ASSERT_EQ(doc["results"]["failures"]["nodes_lost"].size(), 2u) << doc["results"]["failures"];
    for (int node : {0, 1, 3}) EXPECT_GT(doc["results"]["nodes"][node]["events_built"].get<double>(), 0) << doc["results"]["nodes"][node];
}

// Without --on-failure continue the same kill ends the run: every surviving rank, on every host,
// ends with one line naming the rank it lost, and no report claims a result.
TEST(NetnsCluster, AHostWhoseProcessesAreKilledWithoutContinueEndsEverySurvivorWithOneLine) {
    NetnsTestBed bed("switch4.fabric");
    ASSERT_EQ(bed.up().exit_code, 0) << bed.up().err;
    auto r = run_on_each_host(4, 2, "--ppn 2 --credits 4 --fragment-size 64KiB --progress-interval 250ms --duration 20s --heartbeat 1s",
                              netns_script + " kill h3");
    for (const char* host : {"h1", "h2", "h4"}) EXPECT_NE(r.out.find(std::string("== ") + host + " rc=1\n"), std::string::npos) << r.out;
    for (int rank : {0, 1, 2, 3, 6, 7})
        EXPECT_TRUE(std::regex_search(r.out, std::regex("\nevbench\\[rank " + std::to_string(rank) + "\\]: error: [^\n]*rank \\d")) &&
                    count(r.out, "evbench[rank " + std::to_string(rank) + "]: ") == 1u)
            << rank << "\n"
            << r.out;
    EXPECT_EQ(r.out.find("# system:"), std::string::npos) << r.out;
}

} // namespace
