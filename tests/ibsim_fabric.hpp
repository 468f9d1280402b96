// A simulated InfiniBand subnet with the real tools: ibsim serves a net file, OpenSM (under the
// umad2sim LD_PRELOAD library) routes it, and infiniband-diags dump it. Each instance has its own
// ibsim socket name, so tests may run in parallel; ibsim is stopped by process id.
#pragma once
#include "netsim/fabric/topology.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace evb::test {

class IbsimFabric {
public:
    // Writes `topology` as the net file and starts ibsim on it; throws std::runtime_error.
    explicit IbsimFabric(const netsim::Topology& topology);
    ~IbsimFabric();
    IbsimFabric(const IbsimFabric&) = delete;
    IbsimFabric& operator=(const IbsimFabric&) = delete;

    // Runs OpenSM once with a routing engine (ftree gets the top level's switches as roots).
    void run_opensm(const std::string& engine);
    // Runs `command` against the simulated subnet; throws on a non-zero exit.
    std::string tool(const std::string& command) const;
    // Writes `command`'s output to a file in the test directory and returns its path.
    std::string dump(const std::string& command, const std::string& file) const;

    const std::string& net_file() const { return net_file_; }

private:
    std::string prefix() const;
    const netsim::Topology& topology_;
    std::string socket_, net_file_, osm_dir_;
    pid_t pid_ = -1;
};

// True when ibsim, opensm and infiniband-diags are installed (launch/setup-debian.sh installs them).
bool ibsim_tools_present();

} // namespace evb::test
