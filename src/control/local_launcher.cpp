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

int launch_local(const LocalLaunch& launch, int argc, const char* const* argv) {
    const std::uint32_t n = launch.ranks;
    const bool serves_bootstrap = launch.first_rank == 0; // rank 0 is here
    const std::string bootstrap = launch.run_size > n ? given_bootstrap(launch.bootstrap) : launch.bootstrap;
    // Rank 0 inherits this socket; every rank is told the same endpoint (and --bootstrap, when
    // given, names it too), so the launcher listens where the user asked.
    std::string host = "127.0.0.1";
    int port = 0;
    if (!bootstrap.empty()) {
        try {
            std::tie(host, port) = split_host_port(bootstrap);
        } catch (const std::exception& e) {
            throw ConfigError(std::string("--bootstrap: ") + e.what());
        }
    }
    int listen_fd = -1;
    std::string endpoint = bootstrap; // another host's rank 0 serves it
    if (serves_bootstrap) {
        try {
            listen_fd = listen_on_when_free(host, port, bootstrap_backlog, bootstrap_setup_time, [&](const std::string& why) {
                std::cerr << "evbench: " << why << ": waiting up to " << static_cast<int>(bootstrap_setup_time.seconds())
                          << " s for it (another run?)\n";
            });
        } catch (const std::exception& e) {
            throw ConfigError("--bootstrap " + bootstrap + ": the local launcher cannot serve there: " + e.what());
        }
        endpoint = host + ":" + std::to_string(bound_port(listen_fd));
    }
    hand_run_key_to_children(launch.run_key_file);
    // The very command line, --launch-local included: each rank knows it was launched so (its
    // result records it), and a rank never launches (EVBENCH_RANK tells it it is one).
    std::vector<std::string> args(argv, argv + argc);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);

    // The binary by its own path, so the ranks are named evbench in ps, top and perf (through
    // /proc/self/exe they were "exe"); that link itself when the file is gone (rebuilt meanwhile).
    std::string binary = "/proc/self/exe";
    char path[4096];
    if (const ssize_t len = readlink("/proc/self/exe", path, sizeof path); len > 0 && static_cast<std::size_t>(len) < sizeof path) {
        const std::string resolved(path, static_cast<std::size_t>(len));
        if (access(resolved.c_str(), X_OK) == 0) binary = resolved;
    }
    std::vector<pid_t> pids(n, -1);
    for (std::uint32_t r = 0; r < n; ++r) {
        pid_t pid = fork();
        if (pid < 0) {
            std::cerr << "evbench: error: fork failed: " << errno_text() << "\n";
            for (pid_t p : pids)
                if (p > 0) kill(p, SIGKILL);
            return 1;
        }
        if (pid == 0) {
            setenv("EVBENCH_RANK", std::to_string(launch.first_rank + r).c_str(), 1);
            setenv("EVBENCH_SIZE", std::to_string(launch.run_size).c_str(), 1);
            setenv("EVBENCH_LOCAL_RANK", std::to_string(r).c_str(), 1);
            setenv("EVBENCH_LOCAL_SIZE", std::to_string(n).c_str(), 1);
            setenv("EVBENCH_BOOTSTRAP", endpoint.c_str(), 1);
            if (r == 0 && serves_bootstrap) {
                int fd = dup(listen_fd); // dup drops FD_CLOEXEC: rank 0 inherits the socket
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
    if (listen_fd >= 0) close(listen_fd);

    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    // Children end by themselves within their deadline; allow setup time on top.
    Picoseconds limit = steady_now() + launch.run_deadline + Picoseconds::from_seconds(40);
    int exit_code = 0, rank0_code = 0;
    std::uint32_t running = n;
    bool killed = false;
    // Once rank 0 has reported, or every other rank has ended, what still runs after the grace is
    // stopped or hung (a SIGSTOPped rank; a stopped rank 0 after the others gave up on it).
    Picoseconds kill_rest_at = Picoseconds::max();
    const char* kill_rest_why = "";
    // A rank the launcher cannot reap a grace after SIGKILL (held by a debugger that attached to
    // it, or stuck in the kernel) is named and left: the launcher still ends.
    Picoseconds abandon_at = Picoseconds::max();
    auto sigkill = [&](pid_t pid) {
        kill(pid, SIGKILL);
        abandon_at = std::min(abandon_at, steady_now() + launch.grace);
    };
    // pids[0] is rank 0 where this host serves the bootstrap; the rank 0 rules apply only there.
    auto rank_of = [&](std::uint32_t i) { return launch.first_rank + i; };
    auto rank0_runs = [&] { return serves_bootstrap && pids[0] > 0; };
    while (running) {
        int status = 0;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            std::uint32_t i = 0;
            while (i < n && pids[i] != pid) ++i;
            if (i == n) continue;
            pids[i] = -1;
            --running;
            int code = 0;
            if (WIFSIGNALED(status)) {
                std::cerr << fmt::format(
                    "evbench: rank {} (pid {}) was killed by signal {} ({}){}\n", rank_of(i), pid, WTERMSIG(status),
                    strsignal(WTERMSIG(status)),
                    launch.survive && rank_of(i) != 0 && (rank0_runs() || !serves_bootstrap) ? "; the run goes on without it" : "");
                code = 1;
            } else {
                code = WEXITSTATUS(status);
            }
            exit_code = std::max(exit_code, code);
            if (rank_of(i) == 0) {
                rank0_code = code;
                kill_rest_at = steady_now() + launch.grace;
                kill_rest_why = "rank 0 ended";
            } else if (running == 1 && rank0_runs() && launch.run_size == n) {
                kill_rest_at = steady_now() + launch.grace;
                kill_rest_why = "every other rank ended";
            }
            continue;
        }
        if (steady_now() > kill_rest_at) {
            for (std::uint32_t r = 0; r < n; ++r)
                if (pids[r] > 0) {
                    std::cerr << fmt::format("evbench: rank {} (pid {}) still runs {:g} s after {}; killing it\n", rank_of(r), pids[r],
                                             launch.grace.seconds(), kill_rest_why);
                    sigkill(pids[r]);
                }
            kill_rest_at = Picoseconds::max();
        }
        if (interrupted) {
            for (pid_t p : pids)
                if (p > 0) kill(p, interrupted);
            interrupted = 0;
        }
        if (!killed && steady_now() > limit) {
            std::cerr << "evbench: error: ranks still running past the run's deadline; killing them\n";
            for (pid_t p : pids)
                if (p > 0) sigkill(p);
            killed = true;
            exit_code = std::max(exit_code, 1);
        }
        if (steady_now() > abandon_at) {
            for (std::uint32_t r = 0; r < n; ++r)
                if (pids[r] > 0) {
                    std::cerr << fmt::format("evbench: error: rank {} (pid {}) did not end {:g} s after SIGKILL ({}); leaving it\n",
                                             rank_of(r), pids[r], launch.grace.seconds(), process_state_text(pids[r]));
                    if (rank_of(r) == 0) rank0_code = 1;
                }
            exit_code = std::max(exit_code, 1);
            break;
        }
        usleep(20000);
    }
    // Surviving, the run's outcome is what rank 0 reported (0, or 3 when data was lost); on another
    // host, what its own ranks ended with.
    return launch.survive && serves_bootstrap ? rank0_code : exit_code;
}

} // namespace evb
