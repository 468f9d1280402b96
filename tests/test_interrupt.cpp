// Ctrl-C and SIGTERM during a run (src/core/interrupt.hpp): the run ends as at its duration, the
// table, the summary and the JSON cover what was measured, and the exit code is 128 + the signal.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace evb::test;

namespace {

struct Interrupted {
    CommandResult run;
    nlohmann::json doc; // null when no JSON was written
    int exit_code = -1; // evbench's (the shell's `wait`)
};

// Starts evbench with `args` and --json, waits for a progress line with events built,
// runs `signal` (a shell command; $pid is evbench's process, the leader of its own process group
// when `group` is set, as a terminal's foreground job is), then waits for evbench to end.
// `launcher`: what evbench runs under ("mpirun -np 4 "), its process the one signalled.
Interrupted interrupt_run(const std::string& args, const std::string& signal, const std::string& name, bool group = false,
                          const std::string& launcher = "") {
    const std::string out = temp_path(name + ".out"), json = temp_path(name + ".json"), file = temp_path(name + ".sh");
    const std::string script = std::string(group ? "setsid " : "") + launcher + evbench_binary() + " " + args + " --json " + json + " >" +
        out + " 2>&1 &\n" +
        "pid=$!\n"
        "for i in $(seq 1200); do grep -Eq '^\\[.*\\] events +[1-9]' " +
        out + " && break; sleep 0.05; done\n" + signal + "\n" +
        "wait $pid; echo \"rc=$?\"\n"
        "cat " +
        out + "\n";
    std::ofstream(file) << script;
    Interrupted r;
    r.run = run_command("bash " + file, 120);
    const auto at = r.run.out.find("rc=");
    if (at != std::string::npos) r.exit_code = std::stoi(r.run.out.substr(at + 3));
    const std::string text = read_file(json);
    if (!text.empty()) r.doc = nlohmann::json::parse(text);
    return r;
}

// What every interrupted event-building run must show: no event lost or half built, the
// interrupt in the report and the JSON, and the run ended long before its 60 s.
void expect_clean_interrupt(const Interrupted& r, const std::string& signal, int exit_code) {
    ASSERT_EQ(r.exit_code, exit_code) << r.run.out << r.run.err;
    ASSERT_FALSE(r.doc.is_null()) << r.run.out;
    const auto& results = r.doc["results"];
    EXPECT_EQ(results["interrupted"], signal);
    EXPECT_EQ(results["exit_code"], exit_code);
    EXPECT_LT(results["elapsed_s"].get<double>(), 60.0);
    const auto& sys = results["system"];
    EXPECT_GT(sys["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(sys["errors"], 0) << r.run.out;
    EXPECT_NE(r.run.out.find("# interrupted by " + signal), std::string::npos) << r.run.out;
    EXPECT_NE(r.run.out.find("# system: "), std::string::npos) << r.run.out;
    EXPECT_NE(r.run.out.find("evbench: interrupted by " + signal + ": the report covers the run until then (exit code " +
                             std::to_string(exit_code) + ")"),
              std::string::npos)
        << r.run.out;
}

} // namespace

TEST(Interrupt, CtrlCEndsAnInProcessRunWithEveryEventBegunBuiltAndItsReport) {
    auto r = interrupt_run("--duration 60s --progress-interval 100ms", "kill -INT $pid", "local");
    expect_clean_interrupt(r, "SIGINT", 130);
    const auto& sys = r.doc["results"]["system"];
    EXPECT_EQ(sys["events_built"], sys["events_assigned"]) << r.run.out; // drained: none begun and left
}

TEST(Interrupt, CtrlCToTheWholeProcessGroupOfALocalLaunchEndsEveryRankOnceAndRankZeroReports) {
    // The terminal sends SIGINT to the launcher and every rank, and the launcher passes it on:
    // each rank sees it twice within milliseconds, which is one interrupt.
    auto r =
        interrupt_run("--transport tcp --launch-local 4 --duration 60s --progress-interval 100ms", "kill -INT -- -$pid", "tcp_group", true);
    expect_clean_interrupt(r, "SIGINT", 130);
    EXPECT_EQ(r.run.out.find("killed by signal"), std::string::npos) << r.run.out;
}

TEST(Interrupt, SigtermToOneRankOfAPushRunEndsTheRunOnEveryRank) {
    // Rank 2 alone is told: it tells rank 0, which ends the run everywhere.
    auto r = interrupt_run(
        "--transport tcp --launch-local 4 --protocol push --duration 60s --progress-interval 100ms",
        "for p in $(pgrep -P $pid); do tr \"\\0\" \"\\n\" </proc/$p/environ | grep -qx EVBENCH_RANK=2 && kill -TERM $p; done", "tcp_rank2");
    expect_clean_interrupt(r, "SIGTERM", 143);
}

TEST(Interrupt, ASimulatedRunIsCutWhereItWasInterrupted) {
    auto r = interrupt_run("--transport sim --nodes 16 --k 4 --duration 10s --progress-interval 1ms", "kill -TERM $pid", "sim");
    ASSERT_EQ(r.exit_code, 143) << r.run.out << r.run.err;
    ASSERT_FALSE(r.doc.is_null());
    EXPECT_EQ(r.doc["results"]["interrupted"], "SIGTERM");
    EXPECT_LT(r.doc["results"]["elapsed_s"].get<double>(), 10.0); // simulated: cut where it was
    EXPECT_GT(r.doc["results"]["system"]["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(r.doc["results"]["system"]["errors"], 0);
    EXPECT_NE(r.run.out.find("# interrupted by SIGTERM at "), std::string::npos) << r.run.out;
}

#ifdef EVB_HAVE_MPI
// Under mpirun, as docs/usage.md says to run it: mpirun answers Ctrl-C with SIGTERM to every rank
// and, --mca odls_base_sigkill_timeout later, SIGKILL; in that time rank 0 gathers and writes.
TEST(Interrupt, CtrlCToMpirunWithTheDocumentedKillTimeoutKeepsTheResult) {
    auto r = interrupt_run(
        "--transport mpi --duration 60s --progress-interval 100ms", "kill -INT $pid", "mpi_mpirun", false,
        "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe --mca odls_base_sigkill_timeout 10 -np 4 ");
    ASSERT_FALSE(r.doc.is_null()) << r.run.out;
    const auto& results = r.doc["results"];
    EXPECT_EQ(results["interrupted"], "SIGTERM") << r.run.out;
    EXPECT_EQ(results["exit_code"], 143);
    EXPECT_GT(results["system"]["events_built"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(results["system"]["errors"], 0) << r.run.out;
    EXPECT_LT(results["elapsed_s"].get<double>(), 60.0);
}
#endif
