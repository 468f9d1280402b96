#include "core/machine_info.hpp"

#include "core/cpu_list.hpp"
#include "core/quantity.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string_view>
#include <optional>

#ifdef EVB_HAVE_HWLOC
#include <hwloc.h>
#endif

namespace fs = std::filesystem;

namespace evb {

namespace {

// One sysfs attribute, trailing newline removed; empty when missing or unreadable (some, like a
// virtual interface's speed, fail to read on purpose).
std::string read_attribute(const fs::path& path) {
    std::ifstream f(path);
    std::string line;
    if (!f || !std::getline(f, line)) return "";
    return line;
}

// The value of the first "KEY: value" line of a /proc file (/proc/meminfo, /proc/cpuinfo,
// /proc/PID/status; the key may be padded before its colon), trimmed; nullopt when no line has it.
std::optional<std::string> proc_field(const fs::path& path, std::string_view key) {
    std::ifstream f(path);
    for (std::string line; std::getline(f, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string_view name(line.data(), colon);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
        if (name != key) continue;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return std::nullopt;
}

int read_int(const fs::path& path, int fallback) {
    auto text = read_attribute(path);
    try {
        return text.empty() ? fallback : std::stoi(text);
    } catch (const std::exception&) {
        return fallback;
    }
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path());
    std::ranges::sort(out);
    return out;
}

// Sorted by the number at the end of the name: node2 before node10, port 2 before 10.
int trailing_number(const fs::path& p) {
    const std::string name = p.filename().string();
    auto digits = name.find_last_not_of("0123456789");
    try {
        return std::stoi(name.substr(digits == std::string::npos ? 0 : digits + 1));
    } catch (const std::exception&) {
        return -1;
    }
}

std::vector<int> cpu_list_at(const fs::path& path) {
    try {
        return parse_cpu_list(read_attribute(path));
    } catch (const std::invalid_argument&) {
        return {};
    }
}

void probe_cpus(MachineInfo& m) {
#ifdef EVB_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            m.sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
            m.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            m.threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        }
        hwloc_topology_destroy(topo);
    }
#endif
    if (m.threads == 0) m.threads = m.cores = static_cast<int>(cpu_list_at("/sys/devices/system/cpu/online").size());
}

std::vector<NumaNodeInfo> numa_nodes_of_sysfs() {
    std::vector<NumaNodeInfo> nodes;
    for (const auto& dir : sorted_entries("/sys/devices/system/node")) {
        const std::string name = dir.filename().string();
        if (name.rfind("node", 0) != 0 || name.size() == 4 || name.find_first_not_of("0123456789", 4) != std::string::npos) continue;
        NumaNodeInfo n;
        n.id = trailing_number(dir);
        n.cpus = cpu_list_at(dir / "cpulist");
        std::ifstream meminfo(dir / "meminfo"); // "Node 0 MemTotal:  24601180 kB"
        for (std::string line; std::getline(meminfo, line);)
            if (auto at = line.find("MemTotal:"); at != std::string::npos) n.memory_bytes = std::stoull(line.substr(at + 9)) * 1024;
        nodes.push_back(n);
    }
    std::ranges::sort(nodes, {}, &NumaNodeInfo::id);
    return nodes;
}

bool all_zero_gid(const std::string& gid) { return gid.find_first_not_of("0:") == std::string::npos; }

RdmaPortInfo probe_port(const fs::path& port_dir) {
    RdmaPortInfo p;
    p.port = trailing_number(port_dir);
    auto state = read_attribute(port_dir / "state"); // "4: ACTIVE"
    p.state = state.substr(state.find(':') == std::string::npos ? 0 : state.find(':') + 2);
    p.link_layer = read_attribute(port_dir / "link_layer");
    p.rate = read_attribute(port_dir / "rate");
    p.netdev = read_attribute(port_dir / "gid_attrs" / "ndevs" / "0");
    auto gids = sorted_entries(port_dir / "gids");
    std::ranges::sort(gids, {}, trailing_number);
    for (const auto& g : gids)
        if (auto text = read_attribute(g); !text.empty() && !all_zero_gid(text)) p.gids.push_back(text);
    return p;
}

void probe_rdma(MachineInfo& m) {
    for (const auto& dir : sorted_entries("/sys/class/infiniband")) {
        RdmaDeviceInfo d;
        d.name = dir.filename().string();
        auto ports = sorted_entries(dir / "ports");
        std::ranges::sort(ports, {}, trailing_number);
        for (const auto& p : ports) d.ports.push_back(probe_port(p));
        d.numa_node = numa_node_of_rdma_device(d.name);
        d.near_cpus = cpu_list_at(dir / "device" / "local_cpulist");
        // Soft-RoCE has no device of its own: its Ethernet interface's is the one that counts.
        if (d.near_cpus.empty() && !d.ports.empty() && !d.ports[0].netdev.empty())
            d.near_cpus = cpu_list_at(fs::path("/sys/class/net") / d.ports[0].netdev / "device" / "local_cpulist");
        m.rdma_devices.push_back(d);
    }
}

std::string address_text(const sockaddr* a) {
    char text[INET6_ADDRSTRLEN] = {};
    if (a->sa_family == AF_INET)
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a)->sin_addr, text, sizeof text);
    else if (a->sa_family == AF_INET6)
        inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr, text, sizeof text);
    return text;
}

// Interface name -> its IPv4 and IPv6 addresses.
std::map<std::string, std::vector<std::string>> interface_addresses() {
    std::map<std::string, std::vector<std::string>> out;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return out;
    for (ifaddrs* i = list; i; i = i->ifa_next)
        if (i->ifa_addr && (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6))
            out[i->ifa_name].push_back(address_text(i->ifa_addr));
    freeifaddrs(list);
    return out;
}

void probe_interfaces(MachineInfo& m) {
    auto addresses = interface_addresses();
    for (const auto& dir : sorted_entries("/sys/class/net")) {
        InterfaceInfo i;
        i.name = dir.filename().string();
        i.state = read_attribute(dir / "operstate");
        i.speed_mbps = read_int(dir / "speed", -1);
        i.mtu = read_int(dir / "mtu", 0);
        i.numa_node = numa_node_of_interface(i.name);
        i.addresses = addresses[i.name];
        m.interfaces.push_back(i);
    }
}

void probe_memory(MachineInfo& m) {
    for (const auto& dir : sorted_entries("/sys/kernel/mm/hugepages")) { // hugepages-2048kB
        HugePageInfo h;
        const std::string name = dir.filename().string();
        try {
            h.page_bytes = std::stoull(name.substr(name.find('-') + 1)) * 1024;
        } catch (const std::exception&) {
            continue;
        }
        h.total = static_cast<std::uint64_t>(std::max(0, read_int(dir / "nr_hugepages", 0)));
        h.free = static_cast<std::uint64_t>(std::max(0, read_int(dir / "free_hugepages", 0)));
        m.huge_pages.push_back(h);
    }
    std::ranges::sort(m.huge_pages, {}, &HugePageInfo::page_bytes);
    auto thp = read_attribute("/sys/kernel/mm/transparent_hugepage/enabled"); // "always [madvise] never"
    if (auto open = thp.find('['), close = thp.find(']'); open != std::string::npos && close > open)
        m.transparent_huge_pages = thp.substr(open + 1, close - open - 1);
    rlimit limit{};
    if (getrlimit(RLIMIT_MEMLOCK, &limit) == 0) {
        if (limit.rlim_cur != RLIM_INFINITY) m.memlock_soft = limit.rlim_cur;
        if (limit.rlim_max != RLIM_INFINITY) m.memlock_hard = limit.rlim_max;
    }
}

std::string gib(std::uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
    return text;
}

std::string numa_text(int node) { return node < 0 ? "none" : std::to_string(node); }

} // namespace

MachineInfo probe_machine() {
    MachineInfo m;
    probe_cpus(m);
    m.numa_nodes = numa_nodes_of_sysfs();
    probe_rdma(m);
    probe_interfaces(m);
    probe_memory(m);
    return m;
}

std::vector<NumaNodeInfo> probe_numa_nodes() { return numa_nodes_of_sysfs(); }

int numa_node_of_interface(const std::string& interface) {
    if (interface.empty() || interface.find('/') != std::string::npos) return -1;
    return read_int(fs::path("/sys/class/net") / interface / "device" / "numa_node", -1);
}

int numa_node_of_rdma_device(const std::string& device) {
    if (device.empty() || device.find('/') != std::string::npos) return -1;
    const fs::path dir = fs::path("/sys/class/infiniband") / device;
    int node = read_int(dir / "device" / "numa_node", -1);
    if (node >= 0) return node;
    return numa_node_of_interface(read_attribute(dir / "ports" / "1" / "gid_attrs" / "ndevs" / "0"));
}

std::string interface_with_address(const std::string& host) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    addrinfo* found = nullptr;
    if (host.empty() || getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return "";
    std::vector<std::string> wanted;
    for (addrinfo* a = found; a; a = a->ai_next) wanted.push_back(address_text(a->ai_addr));
    freeaddrinfo(found);
    for (const auto& [name, addresses] : interface_addresses())
        for (const auto& a : addresses)
            if (std::ranges::find(wanted, a) != wanted.end()) return name;
    return "";
}

std::string ipv4_of_interface(const std::string& interface) {
    for (const auto& [name, addresses] : interface_addresses())
        if (name == interface)
            for (const auto& a : addresses)
                if (a.find('.') != std::string::npos) return a;
    return "";
}

NicName nic_named(const std::string& name) {
    if (name.empty()) return {};
    std::error_code ec;
    for (const auto& candidate : {name, name.substr(0, name.find(':')), name.substr(0, name.find('-'))})
        if (!candidate.empty() && candidate.find('/') == std::string::npos && fs::exists(fs::path("/sys/class/infiniband") / candidate, ec))
            return {candidate, ""};
    return {"", name.substr(0, name.find(':'))};
}

std::vector<int> cpus_of_numa_node(int node) {
    if (node < 0) return {};
    return cpu_list_at(fs::path("/sys/devices/system/node") / ("node" + std::to_string(node)) / "cpulist");
}

std::string describe_memlock_limit(std::optional<std::uint64_t> bytes) { return bytes ? format_size(*bytes) : "unlimited"; }

nlohmann::json machine_json(const MachineInfo& m) {
    nlohmann::json numa = nlohmann::json::array(), rdma = nlohmann::json::array(), nets = nlohmann::json::array(),
                   huge = nlohmann::json::array();
    for (const auto& n : m.numa_nodes) numa.push_back({{"id", n.id}, {"cpus", format_cpu_list(n.cpus)}, {"memory_bytes", n.memory_bytes}});
    for (const auto& d : m.rdma_devices) {
        nlohmann::json ports = nlohmann::json::array();
        for (const auto& p : d.ports)
            ports.push_back({{"port", p.port},
                             {"state", p.state},
                             {"link_layer", p.link_layer},
                             {"rate", p.rate},
                             {"netdev", p.netdev},
                             {"gids", p.gids}});
        rdma.push_back({{"name", d.name}, {"numa_node", d.numa_node}, {"near_cpus", format_cpu_list(d.near_cpus)}, {"ports", ports}});
    }
    for (const auto& i : m.interfaces)
        nets.push_back({{"name", i.name},
                        {"state", i.state},
                        {"speed_mbps", i.speed_mbps},
                        {"mtu", i.mtu},
                        {"numa_node", i.numa_node},
                        {"addresses", i.addresses}});
    for (const auto& h : m.huge_pages) huge.push_back({{"page_bytes", h.page_bytes}, {"total", h.total}, {"free", h.free}});
    auto limit = [](std::optional<std::uint64_t> v) { return v ? nlohmann::json(*v) : nlohmann::json("unlimited"); };
    return {{"cpu", {{"sockets", m.sockets}, {"cores", m.cores}, {"threads", m.threads}}},
            {"numa_nodes", numa},
            {"rdma_devices", rdma},
            {"interfaces", nets},
            {"huge_pages", huge},
            {"transparent_huge_pages", m.transparent_huge_pages},
            {"memlock_bytes", {{"soft", limit(m.memlock_soft)}, {"hard", limit(m.memlock_hard)}}}};
}

void print_machine(std::ostream& out, const MachineInfo& m) {
    out << "cpu: " << m.sockets << " socket" << (m.sockets == 1 ? "" : "s") << ", " << m.cores << " cores, " << m.threads << " threads\n";
    for (const auto& n : m.numa_nodes)
        out << "numa node " << n.id << ": cpus " << format_cpu_list(n.cpus) << ", memory " << gib(n.memory_bytes) << "\n";
    if (m.numa_nodes.empty()) out << "numa: none reported (one memory domain)\n";
    if (m.rdma_devices.empty()) out << "rdma devices: none\n";
    for (const auto& d : m.rdma_devices) {
        out << "rdma device " << d.name << ": numa node " << numa_text(d.numa_node) << ", near cpus "
            << (d.near_cpus.empty() ? "any" : format_cpu_list(d.near_cpus)) << "\n";
        for (const auto& p : d.ports) {
            out << "  port " << p.port << ": " << p.state << ", " << p.link_layer << ", " << p.rate;
            if (!p.netdev.empty()) out << ", on " << p.netdev;
            out << "\n";
            for (std::size_t g = 0; g < p.gids.size(); ++g) out << "    gid " << g << ": " << p.gids[g] << "\n";
        }
    }
    for (const auto& i : m.interfaces) {
        out << "interface " << i.name << ": " << i.state << ", "
            << (i.speed_mbps > 0 ? std::to_string(i.speed_mbps) + " Mb/s" : "speed not reported") << ", mtu " << i.mtu << ", numa node "
            << numa_text(i.numa_node);
        for (const auto& a : i.addresses) out << ", " << a;
        out << "\n";
    }
    for (const auto& h : m.huge_pages)
        out << "huge pages " << format_size(h.page_bytes) << ": " << h.total << " configured, " << h.free << " free\n";
    out << "transparent huge pages: " << (m.transparent_huge_pages.empty() ? "not available" : m.transparent_huge_pages) << "\n";
    out << "locked memory limit (RLIMIT_MEMLOCK): " << describe_memlock_limit(m.memlock_soft) << " (hard "
        << describe_memlock_limit(m.memlock_hard) << ")\n";
}

std::uint64_t available_memory_bytes() {
    if (const auto kib = proc_field("/proc/meminfo", "MemAvailable")) return std::stoull(*kib) * 1024; // "1234 kB"
    return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

NicIdentity nic_identity(const NicName& nic) {
    NicIdentity id;
    if (!nic.rdma_device.empty() && nic.rdma_device.find('/') == std::string::npos) {
        const fs::path dir = fs::path("/sys/class/infiniband") / nic.rdma_device;
        id.firmware = read_attribute(dir / "fw_ver");
        std::error_code ec;
        const fs::path driver = fs::read_symlink(dir / "device" / "driver", ec);
        if (!ec) id.driver = driver.filename().string();
        return id;
    }
    if (nic.interface.empty() || nic.interface.size() >= IFNAMSIZ) return id;
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return id;
    ethtool_drvinfo info{};
    info.cmd = ETHTOOL_GDRVINFO;
    ifreq request{};
    std::memcpy(request.ifr_name, nic.interface.c_str(), nic.interface.size());
    request.ifr_data = reinterpret_cast<char*>(&info);
    if (ioctl(fd, SIOCETHTOOL, &request) == 0) {
        id.driver.assign(info.driver, strnlen(info.driver, sizeof info.driver));
        id.firmware.assign(info.fw_version, strnlen(info.fw_version, sizeof info.fw_version));
        if (id.firmware == "N/A") id.firmware.clear();
    }
    close(fd);
    return id;
}

std::string kernel_text() {
    utsname u{};
    if (uname(&u) != 0) return "";
    return std::string(u.sysname) + " " + u.release + " " + u.version;
}

std::string cpu_model() { return proc_field("/proc/cpuinfo", "model name").value_or(""); }

std::string process_state_text(int pid) {
    const fs::path dir = fs::path("/proc") / std::to_string(pid);
    const std::string stat = read_attribute(dir / "stat"); // "PID (COMM) S ...": the state follows the last ')'
    const auto paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size()) return "no such process";
    std::string text = std::string("state ") + stat[paren + 2];
    const std::string wchan = read_attribute(dir / "wchan");
    if (!wchan.empty() && wchan != "0") text += ", in the kernel at " + wchan;
    if (const auto tracer = proc_field(dir / "status", "TracerPid"); tracer && !tracer->empty() && *tracer != "0")
        text += ", traced by pid " + *tracer;
    return text;
}

} // namespace evb
