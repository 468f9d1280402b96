#include "control/local_launcher.hpp"

#include "control/bootstrap.hpp"
#include "core/config_error.hpp"
#include "core/machine_info.hpp"
#include "control/run_key_source.hpp"
#include "core/socket_util.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

namespace evb {
namespace {

volatile sig_atomic_t interrupted = 0;
void on_signal(int sig) { interrupted = sig; }

} // namespace

std::optional<std::string> multi_host_refusal(std::uint32_t per_host, std::uint32_t hosts, std::uint32_t index,
                                              const std::string& bootstrap, const std::string& run_key_file) {
    constexpr std::uint32_t most = max_launched_ranks;
    if (per_host > most) return fmt::format("--launch-local {}: at most {} ranks", per_host, most);
    if (hosts < 1 || hosts > most / std::max(per_host, 1u))
        return fmt::format("--launch-hosts {}: between 1 and {} hosts of {} ranks", hosts, most / std::max(per_host, 1u), per_host);
    if (index >= hosts) return fmt::format("--host-index {} is not below --launch-hosts {} (host 0 runs rank 0)", index, hosts);
    if (hosts == 1) return std::nullopt;
    const std::string endpoint = given_bootstrap(bootstrap);
    if (endpoint.empty())
        return fmt::format(
            "--launch-hosts {}: give --bootstrap HOST:PORT, an address of host 0 (rank 0's) that every host reaches, the same "
            "on every host",
            hosts);
    try {
        if (resolves_to_loopback(split_host_port(endpoint).first))
            return fmt::format(
                "--bootstrap {}: a loopback address, which the other hosts cannot reach: give an address of host 0 on the network "
                "the hosts share",
                endpoint);
    } catch (const std::exception& e) {
        return fmt::format("--bootstrap {}: {}", endpoint, e.what());
    }
    if (!run_key_given(run_key_file))
        return fmt::format(
            "--launch-hosts {}: every host must prove the same run key: give --run-key-file FILE (the same secret on every host) "
            "or set EVBENCH_RUN_KEY (docs/security.md)",
            hosts);
    return std::nullopt;
}

namespace {

// Where the ranks find rank 0's bootstrap: the socket this launcher listens on for rank 0 to
// inherit (host 0 only; -1 elsewhere), and the endpoint every rank is told.
struct BootstrapSocket {
    int listen_fd = -1;
    std::string endpoint;
};

// Rank 0 inherits this socket; every rank is told the same endpoint (and --bootstrap, when given,
// names it too), so the launcher listens where the user asked.
BootstrapSocket serve_bootstrap(const LocalLaunch& launch) {
    const std::string bootstrap = launch.run_size > launch.ranks ? given_bootstrap(launch.bootstrap) : launch.bootstrap;
    std::string host = "127.0.0.1";
    int port = 0;
    if (!bootstrap.empty()) {
        try {
            std::tie(host, port) = split_host_port(bootstrap);
        } catch (const std::exception& e) {
            throw ConfigError(std::string("--bootstrap: ") + e.what());
        }
    }
    if (launch.first_rank != 0) return {-1, bootstrap}; // another host's rank 0 serves it
    BootstrapSocket socket;
    try {
        socket.listen_fd = listen_on_when_free(host, port, bootstrap_backlog, bootstrap_setup_time, [&](const std::string& why) {
            std::cerr << "evbench: " << why << ": waiting up to " << static_cast<int>(bootstrap_setup_time.seconds())
                      << " s for it (another run?)\n";
        });
    } catch (const std::exception& e) {
        throw ConfigError("--bootstrap " + bootstrap + ": the local launcher cannot serve there: " + e.what());
    }
    socket.endpoint = host + ":" + std::to_string(bound_port(socket.listen_fd));
    return socket;
}

// The binary by its own path, so the ranks are named evbench in ps, top and perf (through
// /proc/self/exe they were "exe"); that link itself when the file is gone (rebuilt meanwhile).
std::string own_binary() {
    std::string binary = "/proc/self/exe";
    char path[4096];
    if (const ssize_t len = readlink("/proc/self/exe", path, sizeof path); len > 0 && static_cast<std::size_t>(len) < sizeof path) {
        const std::string resolved(path, static_cast<std::size_t>(len));
        if (access(resolved.c_str(), X_OK) == 0) binary = resolved;
    }
    return binary;
}

// Forks the ranks, each told who it is and where the bootstrap is; rank 0 (host 0) inherits the
// socket. The very command line, --launch-local included: each rank knows it was launched so (its
// result records it), and a rank never launches (EVBENCH_RANK tells it it is one). Empty when a
// fork failed (the ones forked are killed).
std::vector<pid_t> fork_ranks(const LocalLaunch& launch, const BootstrapSocket& socket, int argc, const char* const* argv) {
    std::vector<std::string> args(argv, argv + argc);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    const std::string binary = own_binary();
    std::vector<pid_t> pids(launch.ranks, -1);
    for (std::uint32_t r = 0; r < launch.ranks; ++r) {
        pid_t pid = fork();
        if (pid < 0) {
            std::cerr << "evbench: error: fork failed: " << errno_text() << "\n";
            for (pid_t p : pids)
                if (p > 0) kill(p, SIGKILL);
            return {};
        }
        if (pid == 0) {
            setenv("EVBENCH_RANK", std::to_string(launch.first_rank + r).c_str(), 1);
            setenv("EVBENCH_SIZE", std::to_string(launch.run_size).c_str(), 1);
            setenv("EVBENCH_LOCAL_RANK", std::to_string(r).c_str(), 1);
            setenv("EVBENCH_LOCAL_SIZE", std::to_string(launch.ranks).c_str(), 1);
            setenv("EVBENCH_BOOTSTRAP", socket.endpoint.c_str(), 1);
            if (r == 0 && socket.listen_fd >= 0) {
                int fd = dup(socket.listen_fd); // dup drops FD_CLOEXEC: rank 0 inherits the socket
                setenv("EVBENCH_BOOTSTRAP_FD", std::to_string(fd).c_str(), 1);
            } else {
                unsetenv("EVBENCH_BOOTSTRAP_FD");
            }
            execv(binary.c_str(), cargs.data());
            std::cerr << "evbench: error: exec failed: " << errno_text() << "\n";
            _exit(127);
        }
        pids[r] = pid;
    }
    return pids;
}

// Waits for the forked ranks, passing on Ctrl-C and SIGTERM. Children end by themselves within
// their deadline; the watch allows set-up time on top, then kills them. Once rank 0 has reported,
// or every other rank has ended, what still runs after the grace is stopped or hung (a SIGSTOPped
// rank; a stopped rank 0 after the others gave up on it). A rank it cannot reap a grace after
// SIGKILL (held by a debugger that attached to it, or stuck in the kernel) is named and left: the
// launcher still ends.
class RankWatch {
public:
    RankWatch(const LocalLaunch& launch, std::vector<pid_t> pids)
        : launch_(launch), pids_(std::move(pids)), running_(launch.ranks), serves_bootstrap_(launch.first_rank == 0),
          limit_(steady_now() + launch.run_deadline + Picoseconds::from_seconds(40)) {}

    // The launcher's exit code: surviving, what rank 0 reported (0, or 3 when data was lost); on
    // another host, or without --on-failure continue, the worst of its own ranks.
    int run() {
        while (running_) {
            int status = 0;
            if (const pid_t pid = waitpid(-1, &status, WNOHANG); pid > 0) {
                reaped(pid, status);
                continue;
            }
            kill_the_rest_after_grace();
            forward_interrupt();
            kill_past_deadline();
            if (abandon_the_unreapable()) break;
            usleep(20000);
        }
        return launch_.survive && serves_bootstrap_ ? rank0_code_ : exit_code_;
    }

private:
    std::uint32_t rank_of(std::uint32_t i) const { return launch_.first_rank + i; }
    // pids_[0] is rank 0 where this host serves the bootstrap; the rank 0 rules apply only there.
    bool rank0_runs() const { return serves_bootstrap_ && pids_[0] > 0; }
    void sigkill(pid_t pid) {
        kill(pid, SIGKILL);
        abandon_at_ = std::min(abandon_at_, steady_now() + launch_.grace);
    }

    void reaped(pid_t pid, int status) {
        std::uint32_t i = 0;
        while (i < pids_.size() && pids_[i] != pid) ++i;
        if (i == pids_.size()) return;
        pids_[i] = -1;
        --running_;
        int code = 0;
        if (WIFSIGNALED(status)) {
            std::cerr << fmt::format(
                "evbench: rank {} (pid {}) was killed by signal {} ({}){}\n", rank_of(i), pid, WTERMSIG(status),
                strsignal(WTERMSIG(status)),
                launch_.survive && rank_of(i) != 0 && (rank0_runs() || !serves_bootstrap_) ? "; the run goes on without it" : "");
            code = 1;
        } else {
            code = WEXITSTATUS(status);
        }
        exit_code_ = std::max(exit_code_, code);
        if (rank_of(i) == 0) {
            rank0_code_ = code;
            kill_rest_at_ = steady_now() + launch_.grace;
            kill_rest_why_ = "rank 0 ended";
        } else if (running_ == 1 && rank0_runs() && launch_.run_size == launch_.ranks) {
            kill_rest_at_ = steady_now() + launch_.grace;
            kill_rest_why_ = "every other rank ended";
        }
    }

    void kill_the_rest_after_grace() {
        if (steady_now() <= kill_rest_at_) return;
        for (std::uint32_t r = 0; r < pids_.size(); ++r)
            if (pids_[r] > 0) {
                std::cerr << fmt::format("evbench: rank {} (pid {}) still runs {:g} s after {}; killing it\n", rank_of(r), pids_[r],
                                         launch_.grace.seconds(), kill_rest_why_);
                sigkill(pids_[r]);
            }
        kill_rest_at_ = Picoseconds::max();
    }

    void forward_interrupt() {
        if (!interrupted) return;
        for (pid_t p : pids_)
            if (p > 0) kill(p, interrupted);
        interrupted = 0;
    }

    void kill_past_deadline() {
        if (killed_ || steady_now() <= limit_) return;
        std::cerr << "evbench: error: ranks still running past the run's deadline; killing them\n";
        for (pid_t p : pids_)
            if (p > 0) sigkill(p);
        killed_ = true;
        exit_code_ = std::max(exit_code_, 1);
    }

    bool abandon_the_unreapable() {
        if (steady_now() <= abandon_at_) return false;
        for (std::uint32_t r = 0; r < pids_.size(); ++r)
            if (pids_[r] > 0) {
                std::cerr << fmt::format("evbench: error: rank {} (pid {}) did not end {:g} s after SIGKILL ({}); leaving it\n", rank_of(r),
                                         pids_[r], launch_.grace.seconds(), process_state_text(pids_[r]));
                if (rank_of(r) == 0) rank0_code_ = 1;
            }
        exit_code_ = std::max(exit_code_, 1);
        return true;
    }

    const LocalLaunch& launch_;
    std::vector<pid_t> pids_;
    std::uint32_t running_;
    bool serves_bootstrap_;
    Picoseconds limit_;
    int exit_code_ = 0, rank0_code_ = 0;
    bool killed_ = false;
    Picoseconds kill_rest_at_ = Picoseconds::max();
    const char* kill_rest_why_ = "";
    Picoseconds abandon_at_ = Picoseconds::max();
};

} // namespace

int launch_local(const LocalLaunch& launch, int argc, const char* const* argv) {
    const BootstrapSocket socket = serve_bootstrap(launch);
    hand_run_key_to_children(launch.run_key_file);
    std::vector<pid_t> pids = fork_ranks(launch, socket, argc, argv);
    if (socket.listen_fd >= 0) close(socket.listen_fd);
    if (pids.empty()) return 1;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return RankWatch(launch, std::move(pids)).run();
}

} // namespace evb
