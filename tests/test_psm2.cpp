// The psm2 driver where PSM2 cannot start (no Omni-Path adapter, as on this project's CI machine:
// Debian's libpsm2 fails psm2_init even with PSM2_DEVICES=self,shm): one clear line, exit 2,
// before any rank starts. Where PSM2 starts, the conformance suite runs the driver instead.
#include "drivers/psm2/psm2_transport.hpp"
#include "run_command.hpp"

#include <gtest/gtest.h>

using namespace evb::test;

TEST(Psm2, WithoutAnAdapterARunIsOneClearLine) {
    if (!evb::Psm2Transport::start_problem()) GTEST_SKIP() << "PSM2 starts here: EveryDriver/Conformance.*/psm2 runs it";
    for (const std::string layout : {"--launch-local 2", ""}) {
        SCOPED_TRACE(layout);
        auto r = run_command(evbench_binary() + " --transport psm2 " + layout + " --events 10", 60);
        EXPECT_EQ(r.exit_code, 2);
        EXPECT_EQ(r.out, "");
        ASSERT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err; // once, not once per rank
        EXPECT_EQ(r.err.rfind("evbench: error: psm2: psm2_init failed (", 0), 0u) << r.err;
        EXPECT_NE(r.err.find("hfi1"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("PSM2_DEVICES"), std::string::npos) << r.err;
    }
}
