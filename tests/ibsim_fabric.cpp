#include "ibsim_fabric.hpp"

#include "netsim/fabric/ibnetdiscover_format.hpp"
#include "run_command.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace evb::test {
namespace {
const char* umad2sim = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";
}

bool ibsim_tools_present() {
    return access("/usr/bin/ibsim", X_OK) == 0 && access("/usr/sbin/opensm", X_OK) == 0 && access("/usr/sbin/ibnetdiscover", X_OK) == 0 &&
        access(umad2sim, R_OK) == 0;
}

IbsimFabric::IbsimFabric(const netsim::Topology& topology) : topology_(topology) {
    static int counter = 0;
    std::string tag = std::to_string(getpid()) + "_" + std::to_string(counter++);
    socket_ = "evbench-ibsim-" + tag;
    net_file_ = temp_path("ibsim_" + tag + ".net");
    // OpenSM's own cache (guid2lid) per fabric: one left by an earlier fabric with the same GUIDs
    // would hand out its LIDs, and minhop's balance depends on the order of LIDs.
    osm_dir_ = temp_path("osm_" + tag);
    mkdir(osm_dir_.c_str(), 0755);
    {
        std::ofstream net(net_file_);
        netsim::write_ibnetdiscover(topology, net);
    }
    std::string log = temp_path("ibsim_" + tag + ".log");
    pid_ = fork();
    if (pid_ == 0) {
        int in = open("/dev/null", O_RDONLY), out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        setenv("IBSIM_SOCKNAME", socket_.c_str(), 1);
        execl("/usr/bin/ibsim", "ibsim", "-n", "-s", net_file_.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    if (pid_ < 0) throw std::runtime_error("cannot fork ibsim");
    // Ready when a client can attach: ibaddr answers. A client started before ibsim has read its
    // net file waits 2 s for an answer, so the first try waits for ibsim to say it is ready.
    for (int attempt = 0; attempt < 1000 && read_file(log).find("Network simulator ready") == std::string::npos; ++attempt) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("ibsim exited: " + read_file(log));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        if (run_command(prefix() + "ibaddr", 10).exit_code == 0) return;
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("ibsim exited: " + read_file(log));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("ibsim did not come up: " + read_file(log));
}

IbsimFabric::~IbsimFabric() {
    // ibsim keeps nothing worth a clean exit (its socket is in the abstract namespace), and after
    // SIGTERM it takes some 1.7 s to leave: one fabric's whole routing check took 2 s.
    if (pid_ > 0) {
        kill(pid_, SIGKILL);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
}

std::string IbsimFabric::prefix() const {
    return "IBSIM_SOCKNAME=" + socket_ + " LD_PRELOAD=" + umad2sim + " OSM_TMP_DIR=" + osm_dir_ + " OSM_CACHE_DIR=" + osm_dir_ + " ";
}

std::string IbsimFabric::tool(const std::string& command) const {
    auto r = run_command(prefix() + command, 120);
    if (r.exit_code != 0) throw std::runtime_error(command + " failed (" + std::to_string(r.exit_code) + "): " + r.err);
    return r.out;
}

std::string IbsimFabric::dump(const std::string& command, const std::string& file) const {
    std::string path = temp_path(socket_ + "_" + file);
    std::ofstream(path) << tool(command);
    return path;
}

void IbsimFabric::run_opensm(const std::string& engine) {
    std::string roots;
    if (engine == "ftree") {
        roots = temp_path(socket_ + "_roots.txt");
        std::ofstream f(roots);
        std::uint32_t top = 0;
        for (auto s : topology_.switches()) top = std::max(top, topology_.device(s).level);
        for (auto s : topology_.switches())
            if (topology_.device(s).level == top) f << "0x" << std::hex << topology_.device(s).guid << "\n";
    }
    std::string log = temp_path(socket_ + "_opensm.log");
    tool("opensm -o -R " + engine + (roots.empty() ? "" : " -a " + roots) + " -f " + log);
    std::string text = read_file(log);
    if (text.find(engine + " tables configured on all switches") == std::string::npos)
        throw std::runtime_error("OpenSM did not configure the switches with " + engine + ": see " + log);
}

} // namespace evb::test
