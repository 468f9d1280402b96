// The local launcher ends even when it cannot reap a rank: a debugger attached to a rank (here a
// tracer that never waits for it) holds the rank's exit from the launcher, as a rank stuck in the
// kernel does. Before, the launcher waited for it forever.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <regex>

using namespace evb::test;

TEST(LocalLauncher, ARankItCannotReapIsNamedAndTheLauncherEndsAGraceAfterKillingIt) {
    // The tracer seizes rank 1 (PTRACE_SEIZE: the rank runs on) and never waits for it.
    const std::string tracer = R"py(import ctypes, os, sys, time
launcher = sys.argv[1]
for _ in range(1000):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
            ppid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
        except OSError:
            continue
        if b"EVBENCH_RANK=1" in env and ppid == launcher:
            r = ctypes.CDLL(None, use_errno=True).ptrace(0x4206, int(pid), None, None)
            print("seized" if r == 0 else f"seize failed: {os.strerror(ctypes.get_errno())}", flush=True)
            time.sleep(30)
            sys.exit(0)
    time.sleep(0.01)
print("no rank 1", flush=True)
)py";
    const std::string script = evbench_binary() +
        " --transport tcp --launch-local 2 --duration 2s --grace 1s --quiet 2>&1 & L=$!; "
        "python3 -c '" +
        tracer + "' $L & T=$!; wait $L; echo rc=$?; kill $T";
    auto r = run_command("bash -c \"$(cat <<'SCRIPT'\n" + script + "\nSCRIPT\n)\"", 60);
    ASSERT_NE(r.out.find("seized"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.out.find(" events built in "), std::string::npos) << r.out; // rank 0 reported
    EXPECT_TRUE(std::regex_search(
        r.out,
        std::regex(R"(evbench: error: rank 1 \(pid \d+\) did not end 1 s after SIGKILL \(state Z, traced by pid \d+\); leaving it\n)")))
        << r.out;
    EXPECT_NE(r.out.find("rc=1"), std::string::npos) << r.out;
}

// The ranks carry the program's name, as ps, top and perf show it: they were "exe" (the launcher
// ran them through /proc/self/exe).
TEST(LocalLauncher, ItsRanksAreNamedAfterTheProgram) {
    const std::string script = evbench_binary() +
        " --transport tcp --launch-local 2 --duration 2s --quiet >/dev/null 2>&1 & L=$!; "
        "for i in $(seq 100); do [ $(pgrep -c -P $L) = 2 ] && break; sleep 0.05; done; "
        "for p in $(pgrep -P $L); do echo \"comm=$(cat /proc/$p/comm)\"; done; wait $L; echo rc=$?";
    auto r = run_command("bash -c \"$(cat <<'SCRIPT'\n" + script + "\nSCRIPT\n)\"", 60);
    EXPECT_EQ(count(r.out, "comm=evbench\n"), 2u) << r.out;
    EXPECT_NE(r.out.find("rc=0"), std::string::npos) << r.out;
}
