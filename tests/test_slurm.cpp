// A real single-node Slurm, started by the test (tests/slurm/cluster.sh: munged, slurmctld,
// slurmd on this host, ports of its own) and stopped by process id: srun launches evbench on tcp
// and on mpi (--mpi=pmix), and a 2x2 scan runs as a job array whose results are plotted.
#include "run_command.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

using namespace evb::test;

namespace {

const std::string cluster = std::string(EVBENCH_SOURCE_DIR) + "/tests/slurm/cluster.sh";

class Slurm : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = temp_path("slurm");
        const int base = 20000 + static_cast<int>(getpid() % 4000) * 2; // tests may run side by side
        auto r = run_command(
            "SLURMCTLD_PORT=" + std::to_string(base) + " SLURMD_PORT=" + std::to_string(base + 1) + " " + cluster + " start " + dir_, 60);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        env_ = "SLURM_CONF=" + dir_ + "/slurm.conf ";
    }
    void TearDown() override { run_command(cluster + " stop " + dir_, 30); }

    nlohmann::json srun(const std::string& launcher_args, const std::string& evbench_args, const std::string& name) {
        std::string json = temp_path(name + ".json");
        auto r = run_command(env_ + "srun -N1 -n4 --overcommit " + launcher_args + " " + evbench_binary() + " --quiet --json " + json +
                                 " " + evbench_args,
                             120);
        EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
        if (r.exit_code != 0) return {};
        return nlohmann::json::parse(read_file(json));
    }

    // The job id `sbatch --parsable` printed, once the job has left the queue (empty if it did not).
    std::string wait_for(const CommandResult& submit) {
        EXPECT_EQ(submit.exit_code, 0) << submit.err;
        const std::string job = submit.out.substr(0, submit.out.find_first_of(";\n"));
        auto wait = run_command(
            "for i in $(seq 600); do [ -z \"$(" + env_ + "squeue -h -j " + job + ")\" ] && exit 0; sleep 0.2; done; exit 1", 150);
        EXPECT_EQ(wait.exit_code, 0) << "job " << job << " did not finish";
        return wait.exit_code == 0 ? job : "";
    }

    std::string dir_, env_;
};

} // namespace

TEST_F(Slurm, SrunLaunchesEvbenchOnTcpAndOnMpi) {
    auto tcp = srun("", "--transport tcp --events 200 --fragment-size 64KiB --verify full", "srun_tcp");
    if (!tcp.is_null()) {
        EXPECT_EQ(tcp["results"]["system"]["events_built"], 200);
        EXPECT_EQ(tcp["results"]["system"]["errors"], 0);
    }
    auto mpi = srun("--mpi=pmix", "--transport mpi --events 200 --fragment-size 64KiB --verify full", "srun_mpi");
    if (!mpi.is_null()) {
        EXPECT_EQ(mpi["results"]["system"]["events_built"], 200);
        EXPECT_EQ(mpi["results"]["system"]["errors"], 0);
    }
}

TEST_F(Slurm, ScanAsJobArrayThenPlots) {
    const std::string out = temp_path("array.jsonl");
    const std::string scan = "python3 " + std::string(EVBENCH_SOURCE_DIR) + "/launch/scan.py --binary " + evbench_binary() + " --out " +
        out + " --param credits=1,2 --param parallel=1,2 -- --transport sim --nodes 8 --k 2 --duration 200us";
    ASSERT_FALSE(
        wait_for(run_command(env_ + "sbatch --parsable --array=0-3 -o " + dir_ + "/array_%a.out --wrap '" + scan + "'", 60)).empty());
    std::istringstream in(read_file(out));
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line);
        EXPECT_EQ(j["exit_code"], 0) << line;
        ++lines;
    }
    EXPECT_EQ(lines, 4) << read_file(dir_ + "/array_0.out");
    auto plot = run_command(
        "/usr/bin/python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/plot_scan.py " + out + " --out " + dir_ + "/plots", 120);
    ASSERT_EQ(plot.exit_code, 0) << plot.err;
    EXPECT_GT(read_file(dir_ + "/plots/heatmap_nodes8.png").size(), 1000u);
}

// The batch template itself, submitted as docs/cluster.md writes it, from the source tree (before:
// Slurm ran a copy from its spool folder, the template looked for srun.sh beside the copy, and
// the tests submitted --wrap, so the template had never run). One machine holds the 4 nodes.
TEST_F(Slurm, TheBatchTemplateRunsOneEventBuildPerJob) {
    const std::string out = dir_ + "/template.out";
    const std::string job = wait_for(run_command("cd " + std::string(EVBENCH_SOURCE_DIR) + " && " + env_ +
                                                     "NODES=4 CPU_BIND= SRUN_ARGS=--overcommit SRUN_LAYOUT= EVBENCH=" + evbench_binary() +
                                                     " sbatch --parsable -N 1 -D " + dir_ + " -o " + out +
                                                     " launch/evbench.sbatch --transport tcp --events 100 --fragment-size 64KiB --quiet",
                                                 60));
    ASSERT_FALSE(job.empty());
    const std::string result = read_file(dir_ + "/evbench-" + job + ".json");
    ASSERT_FALSE(result.empty()) << read_file(out);
    auto doc = nlohmann::json::parse(result);
    EXPECT_EQ(doc["config"]["nodes"], 4);
    EXPECT_EQ(doc["results"]["system"]["events_built"], 100);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
}

// launch/srun.sh: ranks in hostfile order through SLURM_HOSTFILE, 2 processes per node.
TEST_F(Slurm, SrunWrapperRunsInHostfileOrder) {
    std::string hosts = temp_path("srun_hosts.txt"), json = temp_path("srun_wrapper.json");
    {
        char name[256] = {0};
        gethostname(name, sizeof name - 1);
        std::ofstream(hosts) << name << "\n" << name << "\n";
    }
    auto r = run_command(env_ + "CPU_BIND= SRUN_ARGS=--overcommit EVBENCH=" + evbench_binary() + " " + EVBENCH_SOURCE_DIR +
                             "/launch/srun.sh -n 2 -p 2 -H " + hosts +
                             " -- --transport tcp --events 100 --fragment-size 64KiB --quiet --json " + json,
                         120);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto doc = nlohmann::json::parse(read_file(json));
    EXPECT_EQ(doc["config"]["ppn"], 2);
    EXPECT_EQ(doc["results"]["system"]["events_built"], 100);
}
