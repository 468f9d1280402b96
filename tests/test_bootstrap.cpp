// Rank 0's bootstrap service, with real ranks on loopback sockets (threads of this process): an
// idle poll must not read from every rank's link (at thousands of ranks that was millions of
// syscalls a second on the EM's thread), and a frame still arrives from the rank that sent it.
// Strangers are kept out: a connection that proves no key, or proves another run's, or sends
// nothing, is dropped without delaying the ranks; a malformed frame is one line naming its rank.
#include "control/bootstrap.hpp"
#include "core/keyed_handshake.hpp"
#include "run_command.hpp"
#include "core/socket_util.hpp"
#include "control/world.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

using namespace evb;
using namespace evb::test;

namespace {

constexpr std::uint32_t ranks = 33;
constexpr int idle_polls = 2000;

// Rank 0 and 32 others; rank 0 polls idle links `idle_polls` times, then rank 7 sends a frame.
void idle_root_then_one_frame() {
    int listener = listen_on("127.0.0.1", 0, 64);
    const std::string endpoint = "127.0.0.1:" + std::to_string(bound_port(listener));
    const Picoseconds timeout = Picoseconds::from_seconds(20);
    const RunKey key = RunKey::random();
    std::vector<std::unique_ptr<Bootstrap>> others(ranks);
    std::vector<std::thread> threads;
    for (std::uint32_t r = 1; r < ranks; ++r)
        threads.emplace_back([&, r] {
            others[r] = std::make_unique<Bootstrap>(World{r, ranks, "test", true, ""}, endpoint, -1, key, timeout);
        });
    Bootstrap root(World{0, ranks, "test", true, ""}, endpoint, listener, key, timeout);
    for (auto& t : threads) t.join();
    for (int i = 0; i < idle_polls; ++i) ASSERT_TRUE(root.poll().empty());
    others[7]->send_to_root(ControlType::progress,
                            {{"bytes_in", 1}, {"bytes_out", 2}, {"events", 42}, {"in_flight", 0}, {"built_bytes", 0}, {"period", 1}});
    for (int i = 0; i < 100000; ++i) {
        auto got = root.poll();
        if (got.empty()) continue;
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].from, 7u);
        EXPECT_EQ(got[0].message.type, ControlType::progress);
        EXPECT_EQ(got[0].message.body.value("events", 0), 42);
        return;
    }
    FAIL() << "rank 7's frame never arrived";
}

} // namespace

TEST(Bootstrap, AFrameFromOneOfManyRanksArrivesNamed) { idle_root_then_one_frame(); }

// Run by the next test under strace; skipped otherwise.
TEST(Bootstrap, StraceProbe) {
    if (!std::getenv("EVB_BOOTSTRAP_PROBE")) GTEST_SKIP() << "run under strace by Bootstrap.AnIdlePollReadsNoSocket";
    idle_root_then_one_frame();
}

TEST(Bootstrap, AnIdlePollReadsNoSocket) {
    // Counts every recvfrom() of the whole process: the 32 hellos and the one frame, against
    // 32 x 2000 when each idle poll reads each link.
    const std::string trace = temp_path("bootstrap.strace");
    // (LeakSanitizer cannot run under ptrace: in the sanitizer build the probe runs without it.)
    auto r = run_command("ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" EVB_BOOTSTRAP_PROBE=1 strace -f -qq -e trace=recvfrom -o " + trace +
                             " /proc/" + std::to_string(getpid()) + "/exe --gtest_filter=Bootstrap.StraceProbe",
                         120);
    ASSERT_EQ(r.exit_code, 0) << inner_gtest_output(r.out) << r.err;
    ASSERT_NE(r.out.find("[  PASSED  ] 1 test"), std::string::npos) << inner_gtest_output(r.out);
    const std::string text = read_file(trace);
    std::size_t calls = 0;
    for (auto at = text.find("recvfrom("); at != std::string::npos; at = text.find("recvfrom(", at + 1)) ++calls;
    EXPECT_GT(calls, 0u) << "strace saw no recvfrom at all";
    EXPECT_LT(calls, std::size_t{idle_polls}) << "rank 0 read its links on idle polls";
}

// A port derived from the job key must lie below the ephemeral ports, where an outgoing
// connection of any other program may already hold it (a CI run failed with "cannot listen on
// 127.0.0.1:35810: Address already in use"), and still differ between concurrent jobs.
TEST(Bootstrap, ADerivedPortLiesBelowTheEphemeralPortsAndDiffersPerJob) {
    int ephemeral_first = 32768; // Linux's default, when /proc does not say
    std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_first;
    std::set<int> ports;
    const int jobs = 4000;
    for (int j = 0; j < jobs; ++j) {
        const std::string endpoint = bootstrap_endpoint("", World{0, 4, "mpirun", true, "ompi." + std::to_string(j)});
        ASSERT_EQ(endpoint.rfind("127.0.0.1:", 0), 0u) << endpoint;
        const int port = std::stoi(endpoint.substr(endpoint.find(':') + 1));
        ASSERT_GE(port, 1024) << endpoint;
        ASSERT_LT(port, ephemeral_first) << endpoint << " is inside ip_local_port_range";
        ports.insert(port);
    }
    // 4000 keys over 12768 ports: a good hash leaves about 3450 distinct; a constant would leave 1.
    EXPECT_GT(ports.size(), 3000u);
}

namespace {

const Picoseconds setup = Picoseconds::from_seconds(20);

struct Listener {
    int fd = listen_on("127.0.0.1", 0, 64);
    std::string endpoint = "127.0.0.1:" + std::to_string(bound_port(fd));
};

// A rank-1 connection that proved `key` and then writes what the test says, raw.
int keyed_raw_rank(const std::string& endpoint, const RunKey& key, std::uint32_t rank = 1) {
    auto [host, port] = split_host_port(endpoint);
    int fd = connect_to(host, port, setup);
    const std::string why = prove_run_key(fd, key, "bootstrap", rank, setup);
    EXPECT_EQ(why, "");
    return fd;
}

std::string frame(std::uint8_t type, const std::string& json) {
    std::string f(4, '\0');
    const auto len = static_cast<std::uint32_t>(json.size() + 1);
    std::memcpy(f.data(), &len, 4);
    f.push_back(static_cast<char>(type));
    return f + json;
}

// Rank 0 of two with a raw rank 1 that sends `bytes` once joined: what rank 0's poll reports.
std::string root_hears(const std::string& bytes) {
    Listener l;
    const RunKey key = RunKey::random();
    int raw = -1;
    std::thread peer([&] { raw = keyed_raw_rank(l.endpoint, key); });
    Bootstrap root(World{0, 2, "test", true, ""}, l.endpoint, l.fd, key, setup);
    peer.join();
    EXPECT_TRUE(send_all(raw, bytes.data(), bytes.size()));
    std::string heard;
    for (int i = 0; i < 2000 && heard.empty(); ++i) {
        for (auto& in : root.poll()) {
            EXPECT_EQ(in.from, 1u);
            heard = std::string(to_string(in.message.type)) + ": " + in.message.body.dump();
        }
        usleep(1000);
    }
    close(raw);
    return heard;
}

} // namespace

// Before: rank 0 read a rank id from each connection in turn, 30 s each, and admitted any.
TEST(BootstrapKey, AConnectionWithoutTheKeyIsDroppedAndDelaysNoRank) {
    Listener l;
    const RunKey key = RunKey::random(), other = RunKey::random();
    const auto [host_, port_] = split_host_port(l.endpoint);
    const std::string host = host_; // named copies: clang 14's lambdas cannot capture structured bindings
    const int port = port_;
    // Three strangers before the rank: one silent, one speaking the old protocol, one with another run's key.
    int silent = connect_to(host, port, setup);
    int old_hello = connect_to(host, port, setup);
    const std::uint32_t hello[2] = {0xEB7C9001u, 1};
    ASSERT_TRUE(send_all(old_hello, hello, sizeof hello));
    std::string other_run, ours = "not run";
    std::thread stranger([&] {
        int fd = connect_to(host, port, setup);
        other_run = prove_run_key(fd, other, "bootstrap", 1, setup);
        close(fd);
        fd = connect_to(host, port, setup);
        ours = prove_run_key(fd, key, "bootstrap", 1, setup);
        close(fd);
    });
    {
        KeyedAcceptor acceptor(l.fd, key, "bootstrap", setup, [](std::uint32_t id) { return id == 1 ? "" : "not rank 1"; });
        auto admitted = acceptor.next(steady_now() + setup);
        ASSERT_TRUE(admitted.has_value());
        EXPECT_EQ(admitted->id, 1u);
        // Admitted while the silent connection still waits for its proof: it delayed nobody.
        char challenge[40];
        ASSERT_TRUE(recv_all(silent, challenge, sizeof challenge, setup));
        char more = 0;
        EXPECT_EQ(recv(silent, &more, 1, MSG_DONTWAIT), -1) << "the silent connection was dropped before the rank was admitted";
        stranger.join();
        EXPECT_EQ(acceptor.dropped(), 1u); // another run's key; the old hello's 8 bytes are no proof yet: it waits
        close(admitted->fd);
    }
    EXPECT_NE(other_run.find("refused our proof of the run key"), std::string::npos) << other_run;
    EXPECT_EQ(ours, "");
    char byte = 0;
    EXPECT_EQ(recv(silent, &byte, 1, 0), 0) << "the acceptor, done, drops what still waits";
    close(silent);
    close(old_hello);
    close(l.fd);
}

// Before: 2000 silent connections held rank 0's 256 waiting slots and every newer connection was
// dropped on arrival, so the real ranks were refused until the strangers' proof time ran out
// (the header came 9.9 s late). The oldest unproven connection now gives way, and a rank that
// comes after a flood proves the key on its first connection.
TEST(BootstrapKey, AFloodOfSilentConnectionsHoldsNoSlotARankNeeds) {
    const int backlog = 4096;
    const int listener = listen_on("127.0.0.1", 0, backlog);
    const int port = bound_port(listener);
    const RunKey key = RunKey::random();
    const std::size_t strangers = KeyedAcceptor::max_pending + 64; // some 650 descriptors in all, under the usual limit of 1024
    std::vector<int> silent;
    for (std::size_t i = 0; i < strangers; ++i) silent.push_back(connect_to("127.0.0.1", port, setup)); // all queued before the rank comes
    std::string ours = "not run";
    std::thread rank([&] {
        const int fd = connect_to("127.0.0.1", port, setup);
        ours = prove_run_key(fd, key, "bootstrap", 1, setup); // once: no second try
        close(fd);
    });
    {
        KeyedAcceptor acceptor(listener, key, "bootstrap", setup, [](std::uint32_t id) { return id == 1 ? "" : "not rank 1"; });
        auto admitted = acceptor.next(steady_now() + setup);
        ASSERT_TRUE(admitted.has_value());
        EXPECT_EQ(admitted->id, 1u);
        rank.join();
        EXPECT_EQ(ours, "");
        EXPECT_GE(acceptor.dropped(), strangers - KeyedAcceptor::max_pending); // the oldest strangers made room
        close(admitted->fd);
    }
    for (int fd : silent) close(fd);
    close(listener);
}

TEST(BootstrapKey, ARankOfAnotherRunOnTheSamePortIsRefusedAndSaysSo) {
    Listener l;
    const RunKey ours = RunKey::random(), theirs = RunKey::random();
    // Rank 0 of three: it listens until rank 2 comes, which starts once the stray rank gave up.
    std::unique_ptr<Bootstrap> root, rank1, rank2;
    std::thread server([&] { root = std::make_unique<Bootstrap>(World{0, 3, "test", true, ""}, l.endpoint, l.fd, ours, setup); });
    std::thread joiner([&] { rank1 = std::make_unique<Bootstrap>(World{1, 3, "test", true, ""}, l.endpoint, -1, ours, setup); });
    std::string error;
    try {
        Bootstrap b(World{2, 3, "test", true, ""}, l.endpoint, -1, theirs, Picoseconds::from_seconds(1));
    } catch (const std::exception& e) {
        error = e.what();
    }
    EXPECT_NE(error.find("is no rank 0 of this run: it refused our proof of the run key"), std::string::npos) << error;
    rank2 = std::make_unique<Bootstrap>(World{2, 3, "test", true, ""}, l.endpoint, -1, ours, setup);
    joiner.join();
    server.join();
    EXPECT_TRUE(root && rank1 && rank2);
}

TEST(BootstrapKey, AKeyedConnectionClaimingARankOutsideTheRunIsDropped) {
    Listener l;
    const RunKey key = RunKey::random();
    auto [host, port] = split_host_port(l.endpoint);
    int fd = connect_to(host, port, setup); // before rank 1, so it waits in the listen queue
    std::string claimed;
    std::thread stranger([&] { claimed = prove_run_key(fd, key, "bootstrap", 7, setup); });
    std::unique_ptr<Bootstrap> rank1;
    std::thread joiner([&] { rank1 = std::make_unique<Bootstrap>(World{1, 2, "test", true, ""}, l.endpoint, -1, key, setup); });
    Bootstrap root(World{0, 2, "test", true, ""}, l.endpoint, l.fd, key, setup);
    joiner.join();
    stranger.join();
    close(fd);
    EXPECT_NE(claimed.find("refused our proof"), std::string::npos) << claimed;
}

// Before: nlohmann's raw exception text ended the run, naming no peer; a "type" field was compared as a string.
TEST(BootstrapMessages, AMalformedFrameIsOneLineNamingTheRankAndItsLinkCloses) {
    EXPECT_NE(root_hears(frame(5, "{\"bytes_in\":1")).find("its progress message is not JSON"), std::string::npos);
    EXPECT_NE(root_hears(frame(77, "{}")).find("a frame of unknown type 77"), std::string::npos);
    // Found by fuzz_control_frames: nlohmann throws out_of_range, not parse_error, on a number beyond a double; it ended the process.
    EXPECT_NE(root_hears(frame(5, R"({"bytes_in":134985E3000})")).find("its progress message holds a number out of range"),
              std::string::npos);
    EXPECT_NE(root_hears(frame(5, R"({"bytes_in":"x","bytes_out":0,"events":0,"in_flight":0,"built_bytes":0,"period":1})"))
                  .find("field 'bytes_in' is not an unsigned integer"),
              std::string::npos);
    EXPECT_NE(root_hears(frame(5, R"({"bytes_in":1,"bytes_out":0,"events":0,"in_flight":0,"built_bytes":0,"period":1,"evil":1})"))
                  .find("a field 'evil'"),
              std::string::npos);
    EXPECT_NE(root_hears(frame(6, R"({"losses":-1})")).find("field 'losses' is not an unsigned 32-bit integer"), std::string::npos);
    std::string huge(4, '\xff');
    EXPECT_NE(root_hears(huge).find("announced a frame of 4294967295 bytes"), std::string::npos);
    const std::string lost = root_hears(frame(5, "[]"));
    EXPECT_EQ(lost.rfind("link_lost", 0), 0u) << lost;
    EXPECT_NE(lost.find("its link was closed"), std::string::npos) << lost;
}

// Before: one 16 MiB frame of '[' held rank 0 in the parser for 6.2 s (any type took 16 MiB).
// Each type has its bound, read from the frame's first five bytes, and JSON nested deeper than
// any message of ours is refused before it is parsed.
TEST(BootstrapMessages, AFrameAboveItsTypesBoundOrNestedTooDeepIsRefusedUnread) {
    std::string announce(4, '\0');
    const std::uint32_t len = 16u << 20;
    std::memcpy(announce.data(), &len, 4);
    EXPECT_NE(
        root_hears(announce + '\x05' + std::string(1000, '[')).find("it announced a progress message of 16777216 bytes (at most 256)"),
        std::string::npos);
    EXPECT_NE(root_hears(frame(7, "{" + std::string(300, ' ') + "}")).find("it announced a beat message of 303 bytes (at most 256)"),
              std::string::npos);
    const std::string deep = root_hears(frame(11, std::string(40, '[') + std::string(40, ']')));
    EXPECT_NE(deep.find("its stats message nests deeper than 32 levels"), std::string::npos) << deep;
    // Brackets inside strings are text, not nesting.
    const std::string text = root_hears(frame(9, R"({"error":")" + std::string(100, '[') + R"("})"));
    EXPECT_EQ(text.rfind("abort: ", 0), 0u) << text;
}

TEST(BootstrapMessages, AMalformedHelloFailsTheSetUpNamingTheRankAndItsAddress) {
    Listener l;
    const RunKey key = RunKey::random();
    int raw = -1;
    std::thread peer([&] {
        raw = keyed_raw_rank(l.endpoint, key);
        const std::string f = frame(1, R"({"value":3,"fingerprint":"f"})");
        send_all(raw, f.data(), f.size());
    });
    Bootstrap root(World{0, 2, "test", true, ""}, l.endpoint, l.fd, key, setup);
    peer.join();
    try {
        root.allgather("mine", "f");
        FAIL() << "a hello whose value is a number was taken";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("rank 1 (127.0.0.1:"), std::string::npos) << what;
        EXPECT_NE(what.find("field 'value' is not a string"), std::string::npos) << what;
    }
    close(raw);
}
