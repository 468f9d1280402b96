// libfabric's shm provider keeps one region per endpoint in /dev/shm. Named by shm itself,
// "<pid>:<uid>:<n>", a region outlives a killed process; when a later process got the same pid,
// its fi_enable found the old region and failed with EBUSY ("ofi: fi_enable: Device or resource
// busy": CI failed so in ProcessEndToEnd.*/OfiShm_Ppn2EmOwnRank and Conformance.*/ofi_shm). The
// driver now names its regions itself and removes those of its own dead processes.
#include "drivers/ofi/shm_region_name.hpp"
#include "transport_world.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <vector>

using namespace evb;
using namespace evb::test;
namespace fs = std::filesystem;

namespace {

// Every rank sends one command to the other; each must receive exactly that one.
void exchange_one_command_each_way(TransportWorld& w) {
    CommandBytes to1{}, to0{};
    to1[0] = std::byte{0x31};
    to0[0] = std::byte{0x30};
    ASSERT_EQ(post_until_taken(w, [&] { return w.at(0).post_send(1, to1); }), PostStatus::ok) << w.at(0).last_error();
    ASSERT_EQ(post_until_taken(w, [&] { return w.at(1).post_send(0, to0); }), PostStatus::ok) << w.at(1).last_error();
    auto messages = [&](std::uint32_t r) {
        std::size_t n = 0;
        for (const auto& g : w.got[r]) n += g.completion.kind == Completion::Kind::message;
        return n;
    };
    ASSERT_TRUE(w.drive([&] { return messages(0) >= 1 && messages(1) >= 1; }, 30));
    ASSERT_EQ(w.got[0].size(), 1u);
    ASSERT_EQ(w.got[1].size(), 1u);
    EXPECT_EQ(w.got[0][0].completion.command, to0);
    EXPECT_EQ(w.got[0][0].completion.peer, 1u);
    EXPECT_EQ(w.got[1][0].completion.command, to1);
    EXPECT_EQ(w.got[1][0].completion.peer, 0u);
}

void write_file(const fs::path& path, std::size_t bytes) {
    std::ofstream out(path, std::ios::binary);
    out << std::string(bytes, '\0');
}

// Files that a test planted, removed however the test ends.
struct Planted {
    std::vector<fs::path> paths;
    ~Planted() {
        for (const auto& p : paths) fs::remove(p);
    }
};

// "-<pid>-", this process's part of a region name (built by appending: GCC 12 at -O3 warns,
// falsely, on "-" + std::string).
std::string own_pid_part() {
    std::string part = "-";
    (part += std::to_string(getpid())) += '-';
    return part;
}

// "evbench-ofi-<pid namespace>": how the driver's region names begin in this namespace.
std::string own_stem() {
    const std::string mine = unique_shm_region_name();
    return mine.substr(0, mine.find(own_pid_part()));
}

// A pid that was this process's child and is gone now.
long dead_pid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    return child;
}

} // namespace

// Before the fix: shm named this process's first endpoints "<pid>:<uid>:0", ":1", ...; a region
// of that name left by an earlier process (here: one that is not shm's, as a region of another
// libfabric version would be) made fi_enable fail with EBUSY.
TEST(OfiShmRegions, ARegionLeftUnderThisPidByAnEarlierProcessDoesNotStopANewRank) {
    Planted planted;
    for (int n = 0; n < 64; ++n) {
        planted.paths.push_back(fs::path("/dev/shm") /
                                (std::to_string(getpid()) + ":" + std::to_string(getuid()) + ":" + std::to_string(n)));
        write_file(planted.paths.back(), 4096);
    }
    std::string why_not;
    auto w = TransportWorld::make("ofi", 2, {"--ofi-provider", "shm"}, why_not);
    if (!w) GTEST_SKIP() << why_not;
    exchange_one_command_each_way(*w);
}

TEST(OfiShmRegions, EveryRegionHasANameOfItsOwn) {
    std::set<std::string> names;
    for (int i = 0; i < 100; ++i) names.insert(unique_shm_region_name());
    EXPECT_EQ(names.size(), 100u);
    EXPECT_EQ(names.begin()->rfind("evbench-ofi-", 0), 0u) << *names.begin();
    EXPECT_NE(names.begin()->find(own_pid_part()), std::string::npos) << *names.begin();
}

// Only the regions of this driver, of this pid namespace, whose process is gone.
TEST(OfiShmRegions, OnlyRegionsOfDeadProcessesOfThisNamespaceAreRemoved) {
    const fs::path dir = fs::temp_directory_path() / ("evb-shm-test-" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string mine = unique_shm_region_name(); // this process: alive
    const std::string stem = own_stem();
    const std::string dead = stem + "-" + std::to_string(dead_pid()) + "-00000000deadbeef";
    const std::string other_namespace = "evbench-ofi-1-" + std::to_string(dead_pid()) + "-0000000000000001";
    const std::string not_ours = std::to_string(dead_pid()) + ":0:0";
    const std::string malformed = stem + "-notapid-1";
    for (const auto& name : {mine, dead, other_namespace, not_ours, malformed}) write_file(dir / name, 64);
    EXPECT_EQ(remove_shm_regions_of_dead_processes(dir), 1u);
    EXPECT_FALSE(fs::exists(dir / dead));
    for (const auto& name : {mine, other_namespace, not_ours, malformed}) EXPECT_TRUE(fs::exists(dir / name)) << name;
    fs::remove_all(dir);
    EXPECT_EQ(remove_shm_regions_of_dead_processes(dir), 0u); // no such directory: nothing, no throw
}

// A killed rank's region (16 MiB of memory in /dev/shm) is removed by the next rank that starts.
TEST(OfiShmRegions, TheRegionOfAKilledRankIsRemovedByTheNextOneToStart) {
    const fs::path left = fs::path("/dev/shm") / (own_stem() + "-" + std::to_string(dead_pid()) + "-0123456789abcdef");
    Planted planted{{left}};
    write_file(left, 4096);
    std::string why_not;
    auto w = TransportWorld::make("ofi", 2, {"--ofi-provider", "shm"}, why_not);
    if (!w) GTEST_SKIP() << why_not;
    EXPECT_FALSE(fs::exists(left));
    exchange_one_command_each_way(*w);
}
