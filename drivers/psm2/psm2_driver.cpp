#include "drivers/psm2/psm2_driver.hpp"

#include "core/config_error.hpp"
#include "core/options.hpp"

namespace evb {

void Psm2Driver::declare_options(OptionSet& options) {
    options
        .text("psm2-job-key", options_.job_key, "TEXT",
              "`psm2`: the job key every rank opens its endpoint with (PSM2's job UUID is made from it)")
        .shown_default("$SLURM_JOB_ID.$SLURM_STEP_ID, else Open MPI's job key, else `evbench`");
}

void Psm2Driver::preflight() const {
    if (auto problem = Psm2Transport::start_problem()) throw ConfigError(*problem);
}

std::unique_ptr<Transport> Psm2Driver::make_one(std::uint32_t rank, std::uint32_t ranks, const std::string&) const {
    return std::make_unique<Psm2Transport>(rank, ranks, options_, heartbeat());
}

} // namespace evb
