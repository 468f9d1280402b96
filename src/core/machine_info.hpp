// What this machine offers for event building, read from hwloc and sysfs: CPUs and NUMA nodes,
// RDMA devices (ports, link layer, state, rate, GIDs, NUMA node, nearest cores), network
// interfaces, huge pages and the locked-memory limit. `evbench info` prints it; placement
// (--placement auto) asks it which NUMA node a NIC hangs off.
#pragma once
#include "core/placement.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace evb {

struct NumaNodeInfo {
    int id = 0;
    std::vector<int> cpus;
    std::uint64_t memory_bytes = 0;
};

struct RdmaPortInfo {
    int port = 0;
    std::string state; // "ACTIVE", "DOWN", ...
    std::string link_layer; // "InfiniBand" or "Ethernet" (RoCE)
    std::string rate; // "100 Gb/sec (4X EDR)"
    std::string netdev; // RoCE: the Ethernet interface under it
    std::vector<std::string> gids; // non-zero entries of the GID table, in index order
};

struct RdmaDeviceInfo {
    std::string name;
    int numa_node = -1; // -1: none reported (a virtual device, or a machine without NUMA)
    std::vector<int> near_cpus;
    std::vector<RdmaPortInfo> ports;
};

struct InterfaceInfo {
    std::string name;
    std::string state; // operstate
    int speed_mbps = -1; // -1: not reported (loopback, virtual)
    int mtu = 0;
    int numa_node = -1;
    std::vector<std::string> addresses;
};

struct HugePageInfo {
    std::uint64_t page_bytes = 0;
    std::uint64_t total = 0, free = 0; // pages
};

struct MachineInfo {
    int sockets = 0, cores = 0, threads = 0;
    std::vector<NumaNodeInfo> numa_nodes;
    std::vector<RdmaDeviceInfo> rdma_devices;
    std::vector<InterfaceInfo> interfaces;
    std::vector<HugePageInfo> huge_pages;
    std::string transparent_huge_pages; // the kernel's mode: "always", "madvise" or "never"
    std::optional<std::uint64_t> memlock_soft, memlock_hard; // bytes; empty: unlimited
};

MachineInfo probe_machine();
// Only the NUMA nodes (sysfs), without the rest of the probe (hwloc, devices, interfaces).
std::vector<NumaNodeInfo> probe_numa_nodes();
nlohmann::json machine_json(const MachineInfo& m);
void print_machine(std::ostream& out, const MachineInfo& m);

// Where a NIC sits, for placement: -1 when the device or interface is unknown or reports none.
int numa_node_of_rdma_device(const std::string& device);
int numa_node_of_interface(const std::string& interface);
// The interface that owns an address or resolvable host name ("10.0.0.1", "node7-ib"); empty
// for wildcard or unknown addresses.
std::string interface_with_address(const std::string& host);
// The first IPv4 address of an interface ("lo" -> "127.0.0.1"); empty when it has none or does not exist.
std::string ipv4_of_interface(const std::string& interface);
// A device name as a library reports it ("mlx5_0", "mlx5_0:1", "rxe0-dgram", "eth0"): an RDMA
// device when sysfs knows one by that name (port and suffix dropped), else an interface.
NicName nic_named(const std::string& name);
// A NIC's driver and firmware as the system tells them (sysfs for RDMA devices, the ethtool
// driver query for interfaces); empty where it tells nothing (loopback, a soft device).
struct NicIdentity {
    std::string driver, firmware;
};
NicIdentity nic_identity(const NicName& nic);
// The kernel (uname: release and version) and the CPU model (/proc/cpuinfo); empty if unknown.
std::string kernel_text();
std::string cpu_model();
// The CPUs of a NUMA node (sysfs), empty when it has none or does not exist.
std::vector<int> cpus_of_numa_node(int node);
// MemAvailable of /proc/meminfo (memory a new allocation can have without swapping), or the
// physical memory where that is not to be read.
std::uint64_t available_memory_bytes();
std::string describe_memlock_limit(std::optional<std::uint64_t> bytes); // "64 KiB" or "unlimited"
// What a process is doing, for a launcher that cannot end it: "state Z, traced by pid 812" or
// "state D, in the kernel at rxe_qp_cleanup" (/proc/PID/stat, wchan and status).
std::string process_state_text(int pid);

} // namespace evb
