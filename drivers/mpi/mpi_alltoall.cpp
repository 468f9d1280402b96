#include "drivers/mpi/mpi_alltoall.hpp"

#include "core/json_file.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <mpi.h>

#include <chrono>
#include <vector>

namespace evb {

int run_alltoall_baseline(const AlltoallRun& run, std::ostream& out) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (static_cast<std::uint32_t>(size) != run.launched_ranks) {
        if (rank == 0)
            fmt::print(stderr, "evbench: error: MPI sees {} ranks, the launcher {}: start with mpirun or srun --mpi=pmix\n", size,
                       run.launched_ranks);
        MPI_Finalize();
        return 2;
    }
    const auto block = static_cast<int>(run.block_bytes);
    std::vector<char> send(static_cast<std::size_t>(block) * static_cast<std::size_t>(size), 1), recv(send.size());
    MPI_Alltoall(send.data(), block, MPI_BYTE, recv.data(), block, MPI_BYTE, MPI_COMM_WORLD); // warm-up
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    std::uint64_t iterations = 0;
    for (int go = 1; go;) {
        MPI_Alltoall(send.data(), block, MPI_BYTE, recv.data(), block, MPI_BYTE, MPI_COMM_WORLD);
        ++iterations;
        if (rank == 0) {
            double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            go = run.iterations ? iterations < run.iterations : elapsed < run.seconds;
        }
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD); // every rank stops after the same iteration
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        // Received per rank: N blocks, one of them its own (never on the network), as a BU's
        // fragments of an event: the two rates of docs/output.md.
        const double built = static_cast<double>(iterations) * block * size, network = built - static_cast<double>(iterations) * block;
        const double per_node = slowest > 0 ? network * 8 / slowest / 1e9 : 0, built_per_node = slowest > 0 ? built * 8 / slowest / 1e9 : 0;
        if (!run.quiet)
            fmt::print(out, "# evbench alltoall baseline: {} ranks, {} B per rank pair, {} iterations in {:.3f} s\n", size, block,
                       iterations, slowest);
        fmt::print(out,
                   "# system: {:.2f} Gb/s aggregate, {:.2f} Gb/s per node over the network ((N - 1) f bytes in per iteration); "
                   "built {:.2f} Gb/s per node (N f, as a BU per event)\n",
                   per_node * size, per_node, built_per_node);
        if (!run.json_file.empty())
            write_json_file(run.json_file,
                            {{"schema", result_schema_version},
                             {"config", run.config_echo},
                             {"results",
                              {{"baseline", "alltoall"},
                               {"ranks", size},
                               {"iterations", iterations},
                               {"seconds", slowest},
                               {"system",
                                {{"per_node_in_gbps", per_node},
                                 {"in_gbps", per_node * size},
                                 {"per_node_built_gbps", built_per_node},
                                 {"built_gbps", built_per_node * size}}}}}});
    }
    MPI_Finalize();
    return 0;
}

} // namespace evb
