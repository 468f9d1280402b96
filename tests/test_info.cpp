// `evbench info` on this machine, checked against the machine's own tools (ip, ulimit, ucx_info,
// mpirun, /proc/meminfo) rather than against the sysfs files it reads; the VM half (rxe0 with its
// port and GID) is in test_verbs.cpp.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

using namespace evb::test;

namespace {

nlohmann::json info_json() {
    const std::string path = temp_path("info.json");
    auto r = run_command(evbench_binary() + " info --json " + path);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(read_file(path)) : nlohmann::json{};
}

std::string shell(const std::string& command) { return run_command(command).out; }

} // namespace

TEST(Info, ThePageStartsWithTheBuildAndNamesTheLimitsThatMatter) {
    auto r = run_command(evbench_binary() + " info");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n') + 1), run_command(evbench_binary() + " --version").out);
    for (const char* line :
         {"\ncpu: ", "\nnuma node 0: cpus ", "\ninterface lo: ", "\ntransparent huge pages: ", "\nlocked memory limit (RLIMIT_MEMLOCK): "})
        EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

TEST(Info, CpusInterfacesAndLimitsAgreeWithTheMachinesOwnTools) {
    auto doc = info_json();
    ASSERT_FALSE(doc.is_null());
    const auto& m = doc["machine"];
    EXPECT_EQ(m["cpu"]["threads"].get<int>(), std::stoi(shell("getconf _NPROCESSORS_ONLN")));
    ASSERT_GE(m["numa_nodes"].size(), 1u);

    // Interfaces and addresses as `ip -j addr` lists them.
    auto ip = nlohmann::json::parse(shell("ip -j addr"));
    std::set<std::string> want, got;
    for (const auto& i : ip) {
        std::string addresses;
        for (const auto& a : i["addr_info"]) (addresses += ' ') += a["local"].get<std::string>();
        want.insert(i["ifname"].get<std::string>() + " mtu " + std::to_string(i["mtu"].get<int>()) + addresses);
    }
    for (const auto& i : m["interfaces"]) {
        std::string addresses;
        for (const auto& a : i["addresses"]) (addresses += ' ') += a.get<std::string>();
        got.insert(i["name"].get<std::string>() + " mtu " + std::to_string(i["mtu"].get<int>()) + addresses);
    }
    EXPECT_EQ(got, want);

    // RLIMIT_MEMLOCK as the shell's ulimit (KiB) says.
    const std::string ulimit = shell("ulimit -l");
    if (ulimit.rfind("unlimited", 0) == 0) {
        EXPECT_EQ(m["memlock_bytes"]["soft"], "unlimited");
    } else {
        EXPECT_EQ(m["memlock_bytes"]["soft"].get<std::uint64_t>(), std::stoull(ulimit) * 1024);
    }
    // The default huge page size's pool, as /proc/meminfo counts it.
    std::smatch size, total;
    const std::string meminfo = read_file("/proc/meminfo");
    ASSERT_TRUE(std::regex_search(meminfo, size, std::regex(R"(Hugepagesize:\s+(\d+) kB)")));
    ASSERT_TRUE(std::regex_search(meminfo, total, std::regex(R"(HugePages_Total:\s+(\d+))")));
    bool found = false;
    for (const auto& h : m["huge_pages"])
        if (h["page_bytes"].get<std::uint64_t>() == std::stoull(size[1]) * 1024) {
            EXPECT_EQ(h["total"].get<std::uint64_t>(), std::stoull(total[1]));
            found = true;
        }
    EXPECT_TRUE(found) << m["huge_pages"].dump();
}

TEST(Info, EveryDriverBuiltIsProbed) {
    auto doc = info_json();
    ASSERT_FALSE(doc.is_null());
    std::istringstream drivers(doc["evbench"]["drivers"].get<std::string>());
    std::set<std::string> built, probed;
    for (std::string d; drivers >> d;) built.insert(d);
    for (const auto& [name, value] : doc["drivers"].items()) probed.insert(name);
    EXPECT_EQ(probed, built);
    const auto& d = doc["drivers"];
#ifdef EVB_HAVE_OFI
    // The providers the conformance suite runs here.
    for (const char* provider : {"tcp;ofi_rxm on lo", "shm on shm"})
        EXPECT_NE(std::ranges::find(d["ofi"]["usable"], provider), d["ofi"]["usable"].end()) << provider << " " << d["ofi"].dump();
#endif
#ifdef EVB_HAVE_UCX
    std::set<std::string> ucx_info, listed;
    std::string transport;
    std::istringstream lines(shell("ucx_info -d"));
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, std::regex(R"(Transport: (\S+))"))) transport = m[1];
        if (std::regex_search(line, m, std::regex(R"(Device: (\S+))"))) ucx_info.insert(transport + "/" + m[1].str());
    }
    for (const auto& t : d["ucx"]["transports"]) listed.insert(t.get<std::string>());
    EXPECT_EQ(listed, ucx_info);
#endif
#ifdef EVB_HAVE_MPI
    std::smatch version;
    const std::string mpirun = shell("mpirun --version");
    ASSERT_TRUE(std::regex_search(mpirun, version, std::regex(R"(\(Open MPI\) (\S+))"))) << mpirun;
    EXPECT_EQ(d["mpi"]["library"], "Open MPI v" + version[1].str());
#endif
#ifdef EVB_HAVE_PSM2
    EXPECT_EQ(d["psm2"]["usable"], false); // no Omni-Path adapter here
#endif
}
