#include "run_command.hpp"

#include "core/socket_util.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace evb::test {
std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

std::string inner_gtest_output(std::string text) {
    const std::string marker = "[  SKIPPED ]";
    for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at)) text.replace(at, marker.size(), "[  skipped ]");
    return text;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

std::string evbench_binary() { return EVBENCH_BINARY; }

int free_port() {
    const int fd = evb::listen_on("127.0.0.1", 0, 1);
    const int port = evb::bound_port(fd);
    close(fd);
    return port;
}

std::string temp_path(const std::string& name) {
    // One directory per test process, removed at exit unless EVB_KEEP_TEST_FILES is set.
    struct TempDir {
        std::string path;
        TempDir() {
            char tmpl[] = "/tmp/evbench-test-XXXXXX";
            path = mkdtemp(tmpl);
        }
        ~TempDir() {
            std::error_code ignored;
            if (!std::getenv("EVB_KEEP_TEST_FILES")) std::filesystem::remove_all(path, ignored);
        }
    };
    static const TempDir dir;
    return dir.path + "/" + name;
}

CommandResult run_command(const std::string& command, double hang_guard_s) {
    static int counter = 0;
    std::string base = temp_path("cmd" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    std::string out = base + ".out", err = base + ".err";
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        std::string full = command + " >" + out + " 2>" + err;
        execl("/bin/sh", "sh", "-c", full.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    CommandResult r;
    int status = 0;
    for (;;) {
        pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > hang_guard_s) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.exit_code = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
}

std::vector<std::string> csv_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
}

nlohmann::json run_evbench_json(const std::string& args, const std::string& name, double hang_guard_s) {
    std::string report;
    return run_evbench_json(args, name, report, hang_guard_s);
}

nlohmann::json run_json_command(const std::string& command, const std::string& name, std::string& report, double hang_guard_s) {
    std::string json = temp_path(name + ".json");
    auto r = run_command(command + " --quiet --json " + json, hang_guard_s);
    report = r.out;
    EXPECT_EQ(r.exit_code, 0) << command << "\n" << r.err;
    if (r.exit_code != 0) return {};
    auto doc = nlohmann::json::parse(read_file(json));
    expect_link_rates_within_b_eff(doc, command);
    expect_result_follows_the_schema(json, command);
    return doc;
}

nlohmann::json run_json_command(const std::string& command, const std::string& name, double hang_guard_s) {
    std::string report;
    return run_json_command(command, name, report, hang_guard_s);
}

nlohmann::json run_evbench_json(const std::string& args, const std::string& name, std::string& report, double hang_guard_s) {
    return run_json_command(evbench_binary() + " " + args, name, report, hang_guard_s);
}

void expect_result_follows_the_schema(const std::string& json_file, const std::string& what) {
    const std::string source = EVBENCH_SOURCE_DIR;
    auto r = run_command(
        "/usr/bin/python3 " + source + "/tests/validate_result.py " + source + "/schema/result-v1.schema.json " + json_file, 60);
    EXPECT_EQ(r.exit_code, 0) << what << ": its --json does not follow schema/result-v1.schema.json:\n" << r.out << r.err;
}

void expect_link_rates_within_b_eff(const nlohmann::json& doc, const std::string& what) {
    const auto& network = doc["results"]["network"];
    if (!network.contains("effective_gbps")) return; // not a simulated run
    const double b_eff = network["effective_gbps"];
    for (const auto& node : doc["results"]["nodes"]) {
        EXPECT_LE(node["in_gbps"].get<double>(), b_eff) << what << ": node " << node["node"];
        EXPECT_LE(node["out_gbps"].get<double>(), b_eff) << what << ": node " << node["node"];
    }
    for (double rx : network["fabric_rx_gbps"]["per_node"]) EXPECT_LE(rx, b_eff) << what;
}

} // namespace evb::test
