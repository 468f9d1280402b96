#include "drivers/mpi/mpi_driver.hpp"

#include "drivers/mpi/mpi_transport.hpp"
#include "core/options.hpp"

namespace evb {

void MpiDriver::declare_options(OptionSet& options) {
    options.on_off("mpi-rma", options_.rma, "`mpi`: write fragments with `MPI_Put` instead of send/receive");
    options
        .text("baseline", options_.baseline, "alltoall",
              "under mpirun or srun: `MPI_Alltoall` of `--fragment-size` per rank pair for `--duration` (or `--events` iterations) "
              "instead of the event builder; per-node Gb/s counts (N - 1) f bytes in per iteration over the network, and built N f, as a "
              "BU per event")
        .whatever_the_transport();
}

std::unique_ptr<Transport> MpiDriver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string&) const {
    return std::make_unique<MpiTransport>(rank, ranks, options_.rma);
}

} // namespace evb
