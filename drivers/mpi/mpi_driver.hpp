// Registry entry of the MPI transport: one process per rank under mpirun or srun --mpi=pmix;
// --mpi-rma selects MPI_Put for fragments, --baseline alltoall runs MPI_Alltoall instead of the
// event builder (drivers/mpi/mpi_alltoall.hpp).
#pragma once
#include "drivers/transport/driver.hpp"

#include <string>

namespace evb {

struct MpiOptions {
    bool rma = false; // fragments by MPI_Put into a dynamic window instead of send/receive
    std::string baseline; // "alltoall": MPI_Alltoall of the same bytes instead of the event builder
};

class MpiDriver final : public Driver {
public:
    const char* name() const override { return "mpi"; }
    const char* help() const override {
        return "Open MPI: commands as tagged non-blocking sends into pre-posted receives; a fragment is a header message plus its "
               "data received straight into the BU's slot, or with --mpi-rma an MPI_Put into a dynamic window, flushed once per poll, then "
               "a notice";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    const char* no_wait_object() const override {
        return "MPI has no wait object to sleep on (with --poll adaptive a rank with nothing in flight naps)";
    }
    void declare_options(OptionSet& options) override;
    DriverProbe probe() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;
    const MpiOptions& options() const { return options_; }

private:
    MpiOptions options_;
};

} // namespace evb
