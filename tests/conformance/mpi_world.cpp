// The conformance world of the mpi driver: one rank per process under mpirun. A world of N
// ranks is the first N processes (a communicator split off MPI_COMM_WORLD, which the transport
// duplicates for its own traffic); the split communicator itself carries the suite's agreements
// (key gathering, collective drive), never the transport's traffic. A failed check in any process
// aborts the job, since its peers would otherwise wait for it in the next agreement.
#include "drivers/mpi/mpi_transport.hpp"
#include "transport_world.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace evb::test {
namespace {

class AbortOnFailure final : public ::testing::EmptyTestEventListener {
    void OnTestEnd(const ::testing::TestInfo& info) override {
        if (!info.result()->Failed()) return;
        std::fprintf(stderr, "conformance: %s.%s failed in this process; aborting the job\n", info.test_suite_name(), info.name());
        std::fflush(nullptr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
};

class MpiWorld final : public TransportWorld {
public:
    MpiWorld(MPI_Comm comm, std::uint32_t ranks, bool rma) : comm_(comm) {
        ranks_ = ranks;
        int r = 0;
        MPI_Comm_rank(comm_, &r);
        me_ = static_cast<std::uint32_t>(r);
        transports_.resize(ranks);
        transports_[me_] = std::make_unique<MpiTransport>(comm_, rma);
    }
    ~MpiWorld() override {
        transports_.clear();
        MPI_Barrier(comm_); // nobody's traffic outlives its world
        MPI_Comm_free(&comm_);
    }
    bool mine(std::uint32_t rank) const override { return rank == me_; }
    std::vector<std::uint64_t> gather(const std::function<std::uint64_t(std::uint32_t)>& value_of_mine) override {
        std::uint64_t mine = value_of_mine(me_);
        std::vector<std::uint64_t> all(ranks_);
        MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_);
        return all;
    }
    bool any(bool mine_says) override {
        int in = mine_says, out = 0;
        MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LOR, comm_);
        return out != 0;
    }

protected:
    std::pair<bool, bool> agree(bool done, bool late, bool until_any) override {
        int in[2] = {until_any ? int(done) : int(!done), int(late)}, out[2] = {0, 0};
        MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, comm_);
        return {until_any ? out[0] != 0 : out[0] == 0, out[1] != 0};
    }

private:
    MPI_Comm comm_;
    std::uint32_t me_ = 0;
};

} // namespace

std::unique_ptr<TransportWorld> make_mpi_world(std::uint32_t ranks, bool rma, std::string& why_not) {
    if (!std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("PMIX_RANK")) {
        why_not = "one rank per process: runs under mpirun (ctest Conformance.MpiUnderMpirun)";
        return nullptr;
    }
    mpi_init_once();
    static bool listening = false;
    if (!listening) {
        ::testing::UnitTest::GetInstance()->listeners().Append(new AbortOnFailure);
        listening = true;
    }
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (static_cast<std::uint32_t>(size) < ranks) {
        why_not = "needs " + std::to_string(ranks) + " processes, mpirun started " + std::to_string(size);
        return nullptr;
    }
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, static_cast<std::uint32_t>(rank) < ranks ? 0 : MPI_UNDEFINED, rank, &comm);
    if (comm == MPI_COMM_NULL) {
        why_not = "this process is beyond the test's " + std::to_string(ranks) + " ranks";
        return nullptr;
    }
    return std::make_unique<MpiWorld>(comm, ranks, rma);
}

} // namespace evb::test
