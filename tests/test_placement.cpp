// Placement on a real node, read back from outside the run: a live evbench process's
// /proc/PID/status (the reactor thread's allowed CPUs), /proc/PID/numa_maps (the pools' memory
// policy) and /proc/PID/smaps (huge pages), against what --placement, --cpus, --numa and
// --hugepages asked; and the run's own read-back in JSON, against the same.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>

using namespace evb::test;

namespace {

// Starts evbench (in one process) with `args`, waits for its first progress line, then runs
// `probe` with $pid set, and lets the run end. Returns the probe's output.
std::string probe_live_run(const std::string& args, const std::string& probe, const std::string& name) {
    const std::string out = temp_path(name + ".out");
    const std::string script = evbench_binary() + " --transport local " + args + " --duration 3s --progress-interval 100ms > " + out +
        " 2>&1 & pid=$!; n=0; until grep -q '^\\[' " + out + " 2>/dev/null; do sleep 0.1; n=$((n+1)); [ $n -lt 600 ] || break; done; " +
        probe + "; wait $pid; echo rc=$?";
    const std::string file = temp_path(name + ".sh");
    std::ofstream(file) << script << "\n";
    auto r = run_command("sh " + file, 120);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out << read_file(out);
    return r.out;
}

std::size_t count_lines_matching(const std::string& text, const std::regex& re) {
    std::size_t n = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) ++n;
    return n;
}

std::string transparent_mode() {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(f, modes);
    auto open = modes.find('['), close = modes.find(']');
    return open == std::string::npos ? "" : modes.substr(open + 1, close - open - 1);
}

} // namespace

TEST(Placement, ManualCpusPinTheReactorThreadAsTheKernelReports) {
    auto out = probe_live_run("--nodes 2 --placement manual --cpus 1", "grep Cpus_allowed_list: /proc/$pid/status", "pin_live");
    EXPECT_TRUE(std::regex_search(out, std::regex(R"(Cpus_allowed_list:\s+1\n)"))) << out;
}

TEST(Placement, ManualNumaBindsEveryPoolAndOnlyThePools) {
    // 2 nodes in one process: an RU and a BU pool each, 8 MiB each (m N c f), pre-faulted: every
    // one of their 32 MiB of pages is under a bind:0 policy, and nothing else is (the kernel
    // merges adjacent mappings of one policy, so count pages, not lines).
    const std::string bound_pages =
        "awk '/ bind:0 / { for (i = 1; i <= NF; i++) if ($i ~ /^anon=/) { sub(\"anon=\", \"\", $i); s += $i } } "
        "END { print \"bound_pages=\" s }' /proc/$pid/numa_maps";
    auto bound = probe_live_run("--nodes 2 --placement manual --numa 0", bound_pages, "numa_live");
    EXPECT_NE(bound.find("bound_pages=" + std::to_string(32 * 1024 * 1024 / 4096) + "\n"), std::string::npos) << bound;
    auto untouched = probe_live_run("--nodes 2 --placement none", "cat /proc/$pid/numa_maps", "numa_none_live");
    EXPECT_EQ(count_lines_matching(untouched, std::regex(R"( bind:)")), 0u) << untouched;
}

TEST(Placement, HugePagesOffKeepsPoolsInNormalPagesAndAutoUsesTransparentOnes) {
    if (transparent_mode() != "madvise")
        GTEST_SKIP() << "transparent huge pages are '" << transparent_mode() << "', not madvise: only the pools' madvise decides";
    // The pools are the mappings bound to node 0 (numa_maps); their huge pages are in smaps.
    const std::string sum = "awk 'NR == FNR { if ($2 == \"bind:0\") pool[$1] = 1; next } "
                            "/^[0-9a-f]+-[0-9a-f]+ / { split($1, range, \"-\"); inside = (range[1] in pool) } "
                            "inside && /^AnonHugePages:/ { s += $2 } END { print \"huge_kb=\" s }' /proc/$pid/numa_maps /proc/$pid/smaps";
    auto off = probe_live_run("--nodes 2 --placement manual --numa 0 --hugepages off", sum, "huge_off");
    auto on = probe_live_run("--nodes 2 --placement manual --numa 0 --hugepages auto", sum, "huge_auto");
    std::smatch a, b;
    ASSERT_TRUE(std::regex_search(off, a, std::regex(R"(huge_kb=(\d*))"))) << off;
    ASSERT_TRUE(std::regex_search(on, b, std::regex(R"(huge_kb=(\d*))"))) << on;
    EXPECT_EQ(a[1].str().empty() ? 0 : std::stoull(a[1]), 0u) << off;
    // 4 pools of 8 MiB (m N c f = 2 * 2 * 2 * 1 MiB), 32 MiB: the kernel backs what it can
    // with 2 MiB pages (all of it on an idle machine; at least half asked here, as memory may be
    // fragmented).
    EXPECT_GE(std::stoull(b[1]), 16u * 1024) << on;
}

TEST(Placement, TheRunsOwnReadBackMatchesTheRequest) {
    auto doc = run_evbench_json(
        "--transport tcp --launch-local 2 --nodes 2 --duration 200ms --placement manual --cpus 1,0 --numa 0 --hugepages off",
        "placement_json");
    ASSERT_FALSE(doc.is_null());
    const auto& p = doc["results"]["placement"];
    ASSERT_EQ(p.size(), 2u);
    // Ranks of a host take the list in turn: rank 0 -> cpu 1, rank 1 -> cpu 0.
    EXPECT_EQ(p[0]["thread_cpus"], "1");
    EXPECT_EQ(p[1]["thread_cpus"], "0");
    for (const auto& r : p) {
        EXPECT_EQ(r["pinned"], true);
        EXPECT_EQ(r["bound_node"], 0);
        EXPECT_EQ(r["page_nodes"], nlohmann::json::array({0}));
        EXPECT_EQ(r["huge_bytes"], 0);
        EXPECT_EQ(r["pages"], "normal pages");
        EXPECT_EQ(r["locked_bytes"], r["pool_bytes"]); // root: no RLIMIT_MEMLOCK applies
        EXPECT_EQ(r["nic"], "lo"); // the interface owning 127.0.0.1
    }
}

TEST(Placement, PerUnitThreadsEachTakeTheirOwnCpuAndOnlyTheirUnitsPools) {
    // 2 processes, 5 endpoints (RU 0, BU 0, EM | RU 1, BU 1): the host's threads take --cpus in
    // turn, so a process's RU and BU threads sit on different cpus.
    auto doc =
        run_evbench_json("--transport tcp --launch-local 2 --nodes 2 --duration 200ms --threads per-unit --placement manual --cpus 1,0",
                         "placement_per_unit");
    ASSERT_FALSE(doc.is_null());
    const auto& p = doc["results"]["placement"];
    ASSERT_EQ(p.size(), 5u);
    const std::vector<std::pair<int, std::string>> expected = {{0, "RU 0"}, {0, "BU 0"}, {0, "EM"}, {1, "RU 1"}, {1, "BU 1"}};
    const std::vector<std::string> cpus = {"1", "0", "1", "0", "1"};
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(p[i]["rank"], expected[i].first) << i;
        EXPECT_EQ(p[i]["units"], expected[i].second) << i;
        EXPECT_EQ(p[i]["thread_cpus"], cpus[i]) << i;
        EXPECT_EQ(p[i]["pinned"], true) << i;
    }
    // Each thread reports the pools of its own unit: m N c f = 2 * 2 * 2 * 1 MiB for an RU and a BU, none for the EM.
    for (std::size_t i : {0u, 1u, 3u, 4u}) EXPECT_EQ(p[i]["pool_bytes"], 8u << 20) << i;
    EXPECT_EQ(p[2]["pool_bytes"], 0u);
    for (const auto& n : doc["results"]["nodes"]) EXPECT_GT(n["events_built"].get<std::uint64_t>(), 0u) << n;
}

TEST(Placement, PerUnitThreadsAreSeparateThreadsOnSeparateCpusAsTheKernelReports) {
    // Every thread of each rank process, from /proc: a per-unit rank has threads pinned to both
    // cpus; with one reactor thread (--threads 1) a rank would have every thread on one.
    const std::string out = temp_path("per_unit_live.out");
    const std::string script = evbench_binary() +
        " --transport tcp --launch-local 2 --nodes 2 --threads per-unit --placement manual --cpus 0,1 "
        "--duration 3s --progress-interval 100ms > " +
        out + " 2>&1 & pid=$!; n=0; until grep -q '^\\[' " + out +
        " 2>/dev/null; do sleep 0.1; n=$((n+1)); [ $n -lt 600 ] || break; done; "
        "for kid in $(cat /proc/$pid/task/$pid/children); do echo \"rank $kid: $(cat /proc/$kid/task/*/status | "
        "awk '/^Cpus_allowed_list:/ { print $2 }' | sort -u | tr '\\n' ' ')\"; done; wait $pid; echo rc=$?";
    const std::string file = temp_path("per_unit_live.sh");
    std::ofstream(file) << script << "\n";
    auto r = run_command("sh " + file, 120);
    ASSERT_NE(r.out.find("rc=0"), std::string::npos) << r.out << read_file(out);
    EXPECT_EQ(count_lines_matching(r.out, std::regex(R"(rank \d+: 0 1 \n)")), 2u) << r.out;
}

TEST(Placement, AutoWithoutANumaNodeForTheNicSaysSoOnce) {
    auto r = run_command(evbench_binary() + " --transport tcp --launch-local 3 --nodes 3 --duration 200ms");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(count_lines_matching(r.out, std::regex(R"(# rank \d: thread on cpus [0-9,-]+ \(not pinned\), pools )")), 3u) << r.out;
    EXPECT_EQ(count_lines_matching(r.out, std::regex(R"(# placement auto: lo reports no NUMA node)")), 1u) << r.out;
}

TEST(Placement, HugePagesOnTakesHugetlbPagesAndSaysWhenThereAreTooFew) {
    const std::string nr = "/proc/sys/vm/nr_hugepages";
    const std::string before = read_file(nr);
    if (before.empty()) GTEST_SKIP() << "no " << nr;
    if (std::stoi(before) == 0) {
        auto refused = run_command(evbench_binary() + " --nodes 2 --hugepages on --events 10");
        EXPECT_EQ(refused.exit_code, 1);
        EXPECT_NE(refused.err.find("--hugepages on: a pool of 8MiB needs 4 huge pages of 2MiB, 0 are free"), std::string::npos)
            << refused.err;
    }
    // 2 nodes: 4 pools of 8 MiB, 4 pages each.
    std::ofstream(nr) << std::stoi(before) + 64 << "\n";
    auto doc = run_evbench_json("--nodes 2 --hugepages on --events 100", "hugetlb");
    std::ofstream(nr) << before;
    ASSERT_FALSE(doc.is_null());
    for (const auto& r : doc["results"]["placement"]) {
        EXPECT_EQ(r["pages"], "huge pages") << r.dump();
        EXPECT_EQ(r["huge_bytes"], r["pool_bytes"]) << r.dump();
    }
    EXPECT_EQ(doc["results"]["system"]["events_built"], 100);
}

TEST(Placement, AMemlockLimitTooLowForThePoolsIsNamed) {
    // Without CAP_IPC_LOCK (dropped from the bounding set), RLIMIT_MEMLOCK applies even to root.
    if (run_command("command -v setpriv").exit_code != 0) GTEST_SKIP() << "setpriv (util-linux) missing";
    const std::string json = temp_path("memlock.json");
    auto r = run_command("sh -c 'ulimit -l 64 && setpriv --bounding-set -ipc_lock " + evbench_binary() +
                         " --transport tcp --launch-local 2 --nodes 2 --events 50 --json " + json + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err; // tcp does not need locked pools: a notice, and the run goes on
    EXPECT_NE(r.out.find("cannot lock the 16MiB of buffer pools in memory (Cannot allocate memory): RLIMIT_MEMLOCK is 64KiB"),
              std::string::npos)
        << r.out;
    auto doc = nlohmann::json::parse(read_file(json));
    for (const auto& p : doc["results"]["placement"]) EXPECT_EQ(p["locked_bytes"], 0) << p.dump();
    EXPECT_EQ(doc["results"]["system"]["events_built"], 50);
}
