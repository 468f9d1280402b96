#include "control/world.hpp"

#include "core/config_error.hpp"
#include "core/hash.hpp"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace evb {
namespace {

// The value of the first of `names` that is set, else `fallback`.
const char* first_set(std::initializer_list<const char*> names, const char* fallback = nullptr) {
    for (const char* name : names)
        if (const char* v = environment_value(name)) return v;
    return fallback;
}

std::uint32_t number(const char* name, const char* text) {
    std::uint64_t v = 0;
    for (const char* p = text; *p; ++p) {
        if (*p < '0' || *p > '9' || v > 100'000'000)
            throw ConfigError(std::string("environment ") + name + "='" + text + "' is not a rank number");
        v = v * 10 + static_cast<std::uint64_t>(*p - '0');
    }
    return static_cast<std::uint32_t>(v);
}

std::optional<World> from(const char* rank_var, const char* size_var, const char* launcher) {
    const char* r = environment_value(rank_var);
    const char* s = environment_value(size_var);
    if (!r || !s) return std::nullopt;
    World w;
    w.rank = number(rank_var, r);
    w.size = number(size_var, s);
    w.launcher = launcher;
    if (w.size == 0 || w.rank >= w.size)
        throw ConfigError(std::string("environment ") + rank_var + "=" + r + " is not below " + size_var + "=" + s);
    return w;
}

// First host of a Slurm node list, through scontrol (it knows every compressed form).
std::string first_slurm_host() {
    const char* list = first_set({"SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST"});
    if (!list) return "";
    std::string cmd = std::string("scontrol show hostnames '") + list + "' 2>/dev/null";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return "";
    char line[256] = {0};
    std::string host = fgets(line, sizeof line, p) ? line : "";
    pclose(p);
    while (!host.empty() && (host.back() == '\n' || host.back() == ' ')) host.pop_back();
    return host;
}

// The rank among those of its host, when the launcher says (else every rank alone).
void set_local(World& w, const char* rank_var, const char* size_var) {
    const char* r = environment_value(rank_var);
    const char* s = environment_value(size_var);
    if (!r || !s) return;
    // Slurm writes tasks per node as "4(x2),3": the first count is this node's on a uniform job.
    std::string size(s);
    size = size.substr(0, size.find_first_not_of("0123456789"));
    if (size.empty()) return;
    w.local_rank = number(rank_var, r);
    w.local_ranks = number(size_var, size.c_str());
    if (w.local_ranks == 0 || w.local_rank >= w.local_ranks) w.local_rank = 0, w.local_ranks = 1;
}

} // namespace

const char* environment_value(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}

std::optional<World> detect_world() {
    if (auto w = from("EVBENCH_RANK", "EVBENCH_SIZE", local_launcher_name)) {
        w->job_key = first_set({"EVBENCH_BOOTSTRAP"}, "local");
        w->local_rank = w->rank;
        w->local_ranks = w->size;
        set_local(*w, "EVBENCH_LOCAL_RANK", "EVBENCH_LOCAL_SIZE"); // one of several hosts' launchers (--launch-hosts)
        w->single_host = w->local_ranks == w->size;
        return w;
    }
    if (auto w = from("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "mpirun")) {
        const char* local = environment_value("OMPI_COMM_WORLD_LOCAL_SIZE");
        w->single_host = local && number("OMPI_COMM_WORLD_LOCAL_SIZE", local) == w->size;
        w->job_key = first_set({"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"}, "ompi");
        set_local(*w, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE");
        return w;
    }
    if (auto w = from("SLURM_PROCID", "SLURM_NTASKS", "srun")) {
        const char* nodes = first_set({"SLURM_STEP_NUM_NODES", "SLURM_NNODES"});
        w->single_host = nodes && std::string(nodes) == "1";
        w->job_key = std::string(first_set({"SLURM_JOB_ID"}, "0")) + "." + first_set({"SLURM_STEP_ID"}, "0");
        set_local(*w, "SLURM_LOCALID",
                  environment_value("SLURM_STEP_TASKS_PER_NODE") ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE");
        return w;
    }
    if (auto w = from("PMIX_RANK", "PMIX_SIZE", "pmix")) {
        w->job_key = first_set({"PMIX_NAMESPACE"}, "pmix");
        return w;
    }
    return std::nullopt;
}

std::string given_bootstrap(const std::string& flag) {
    if (!flag.empty()) return flag;
    const char* e = environment_value("EVBENCH_BOOTSTRAP");
    return e ? e : "";
}

std::string bootstrap_endpoint(const std::string& flag, const World& world) {
    if (std::string given = given_bootstrap(flag); !given.empty()) return given;
    // A port per job, so concurrent jobs on shared nodes do not collide. Below 32768, where
    // Linux's ephemeral ports start by default (ip_local_port_range 32768..60999): inside that
    // range any outgoing connection on the node may hold the port (seen in CI). Every rank must
    // derive the same port, so the range is fixed rather than read from each host's /proc.
    constexpr int first_port = 20000, end_port = 32768;
    int port = first_port + static_cast<int>(mix64(std::hash<std::string>{}(world.job_key)) % (end_port - first_port));
    if (world.single_host) return "127.0.0.1:" + std::to_string(port);
    if (world.launcher == "srun") {
        std::string host = first_slurm_host();
        if (!host.empty()) return host + ":" + std::to_string(port);
    }
    throw ConfigError("ranks span several hosts under " + world.launcher +
                      ": give --bootstrap HOST:PORT (rank 0's host) or set EVBENCH_BOOTSTRAP");
}

} // namespace evb
