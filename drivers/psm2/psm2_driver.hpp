// Registry entry of the PSM2 transport (Omni-Path): one process per rank; --psm2-job-key keeps
// concurrent jobs on one host apart. Where PSM2 cannot start (no hfi1 adapter), the run ends
// before any rank starts with one line naming the cause.
#pragma once
#include "drivers/transport/driver.hpp"
#include "drivers/psm2/psm2_transport.hpp"

namespace evb {

class Psm2Driver final : public Driver {
public:
    const char* name() const override { return "psm2"; }
    const char* help() const override {
        return "PSM2 matched queues (Omni-Path): commands as MQ sends into pre-posted receives, a fragment as a header and its data "
               "received straight into the BU's slot on a tag of its own (PSM2 has no RMA)";
    }
    Processes processes() const override { return Processes::one_per_rank; }
    const char* no_wait_object() const override {
        return "PSM2 has no wait object to sleep on (psm2_mq_wait spins too; with --poll adaptive a rank with nothing in flight naps)";
    }
    void declare_options(OptionSet& options) override;
    void preflight() const override;
    DriverProbe probe() const override;
    std::unique_ptr<Transport> make_one(std::uint32_t rank, std::uint32_t ranks, const std::string& listen_host) const override;

private:
    Psm2Options options_;
};

} // namespace evb
