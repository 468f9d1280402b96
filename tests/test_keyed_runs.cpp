// Real evbench ranks (separate processes on loopback, as mpirun or srun would start them: each
// told its rank, the size and rank 0's bootstrap address) against strangers: a process that
// does not prove the run key is dropped with one line naming its address and the run completes;
// two runs on the same bootstrap port never join, and both complete with their own events.
#include "run_command.hpp"
#include "core/socket_util.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

using namespace evb;
using namespace evb::test;

namespace {

struct Rank {
    std::string out, err;
    CommandResult result;
    std::thread thread;
};

// Starts rank `rank` of a 3-rank tcp run on `port` with key `key`; its JSON goes to out + ".json".
void start(Rank& r, const std::string& name, std::uint32_t rank, int port, const std::string& key) {
    r.out = temp_path(name + ".out");
    r.err = temp_path(name + ".err");
    const std::string cmd = "(EVBENCH_RANK=" + std::to_string(rank) +
        " EVBENCH_SIZE=3 EVBENCH_BOOTSTRAP=127.0.0.1:" + std::to_string(port) + " EVBENCH_RUN_KEY=" + key + " " + evbench_binary() +
        " --transport tcp --duration 1s --quiet --json " + r.out + ".json > " + r.out + " 2> " + r.err + ")";
    r.thread = std::thread([&r, cmd] { r.result = run_command(cmd, 120); });
}

// Waits (up to the set-up time) until `path` holds `what` at least `times` times.
bool wait_for(const std::string& path, const std::string& what, std::size_t times) {
    for (int i = 0; i < 3000; ++i) {
        if (count(read_file(path), what) >= times) return true;
        usleep(10000);
    }
    return false;
}

std::uint64_t events_built(const Rank& root) {
    auto doc = nlohmann::json::parse(read_file(root.out + ".json"), nullptr, false);
    if (doc.is_discarded()) return 0;
    return doc["results"]["system"]["events_built"].get<std::uint64_t>();
}

const std::string key_a(64, 'a'), key_b(64, 'b');

} // namespace

// Before: rank 0 took any connection's first 4 bytes as a rank id; a stranger's garbage was a rank.
TEST(KeyedRuns, AConnectionThatProvesNoKeyIsDroppedNamingItsAddressAndTheRunCompletes) {
    const int port = free_port();
    Rank r0, r1, r2;
    start(r0, "stranger.r0", 0, port, key_a);
    int stranger = connect_to("127.0.0.1", port, Picoseconds::from_seconds(30)); // retries until rank 0 listens
    const std::string garbage(68, '\x01');
    ASSERT_TRUE(send_all(stranger, garbage.data(), garbage.size()));
    EXPECT_TRUE(wait_for(r0.err, "dropped a connection from 127.0.0.1:", 1)) << read_file(r0.err);
    start(r1, "stranger.r1", 1, port, key_a);
    start(r2, "stranger.r2", 2, port, key_a);
    for (Rank* r : {&r0, &r1, &r2}) r->thread.join();
    close(stranger);
    const std::string err = read_file(r0.err);
    EXPECT_EQ(r0.result.exit_code, 0) << err << read_file(r1.err);
    EXPECT_NE(err.find("it did not prove the run key"), std::string::npos) << err;
    EXPECT_EQ(count(err, "\n"), 1u) << "one line for the stranger, nothing else:\n" << err;
    EXPECT_GT(events_built(r0), 0u);
}

// Before: ranks of the second run that reached the first run's rank 0 first became its ranks.
TEST(KeyedRuns, TwoRunsOnTheSameBootstrapPortNeverJoinAndBothComplete) {
    const int port = free_port();
    Rank a0, a1, a2, b0, b1, b2;
    // B's ranks 1 and 2 wait for a rank 0 first; A's rank 0 is the first to listen, so they reach it.
    start(b1, "two.b1", 1, port, key_b);
    start(b2, "two.b2", 2, port, key_b);
    start(a0, "two.a0", 0, port, key_a);
    EXPECT_TRUE(wait_for(a0.err, "dropped a connection", 2)) << read_file(a0.err);
    // B's rank 0 waits for the port while A's rank 0 holds it; A's ranks join A.
    start(b0, "two.b0", 0, port, key_b);
    start(a1, "two.a1", 1, port, key_a);
    start(a2, "two.a2", 2, port, key_a);
    for (Rank* r : {&a0, &a1, &a2, &b0, &b1, &b2}) r->thread.join();
    EXPECT_EQ(a0.result.exit_code, 0) << read_file(a0.err);
    EXPECT_EQ(b0.result.exit_code, 0) << read_file(b0.err) << read_file(b1.err);
    for (Rank* r : {&a1, &a2, &b1, &b2}) EXPECT_EQ(r->result.exit_code, 0) << read_file(r->err);
    EXPECT_GT(events_built(a0), 0u);
    EXPECT_GT(events_built(b0), 0u);
    EXPECT_NE(read_file(b1.err).find("is no rank 0 of this run"), std::string::npos) << read_file(b1.err);
}

// docs/security.md's commands, as written, with a home of their own; then the same file opened to
// others is refused in one line.
TEST(KeyedRuns, TheKeyFileCommandsOfTheSecurityPageRunAsWritten) {
    const std::string page = read_file(std::string(EVBENCH_SOURCE_DIR) + "/docs/security.md");
    const auto begin = page.find("```sh\n"), end = page.find("```", begin + 6);
    ASSERT_NE(begin, std::string::npos);
    const std::string commands = page.substr(begin + 6, end - begin - 6);
    const std::string home = temp_path("security-home");
    const std::string script = home + ".sh";
    { std::ofstream(script) << commands; }
    const std::string bin = evbench_binary();
    auto r =
        run_command("mkdir -p " + home + " && HOME=" + home + " PATH=" + bin.substr(0, bin.rfind('/')) + ":$PATH sh -e " + script, 120);
    ASSERT_EQ(r.exit_code, 0) << commands << r.out << r.err;
    EXPECT_NE(r.out.find("# run key: from --run-key-file " + home + "/.evbench-run-key"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("events built"), std::string::npos) << r.out;
    auto open = run_command("chmod 644 " + home + "/.evbench-run-key && " + bin + " --transport tcp --launch-local 2 --run-key-file " +
                            home + "/.evbench-run-key --duration 1s");
    EXPECT_EQ(open.exit_code, 2) << open.err;
    EXPECT_EQ(open.err,
              "evbench: error: --run-key-file '" + home +
                  "/.evbench-run-key' may be read or written by others than its owner: chmod 600 it\n");
}
