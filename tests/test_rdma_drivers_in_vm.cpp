// The ofi driver on verbs;ofi_rxm and the ucx driver on rc_verbs, over soft-RoCE in the VM
// (tests/vm): each driver's conformance instance and end-to-end event building, in one VM boot
// per driver. The VM has no host name: libfabric's verbs provider resolves its own, so the script
// gives it one. Each test runs 1.5 to 2 minutes, most of it the conformance suite and 4 or 8 runs
// under QEMU's emulation: split in two, each half would boot the VM (some 20 s) and copy the same
// binaries and libraries in again, for the same checks.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace evb::test;

namespace {

// Runs the conformance suite's instance `label` (in the integration tests' binary), then evbench for each protocol and layout
// with each of `flag_sets`, in one VM boot; `extra` are more files the VM needs (UCX's modules).
void conformance_and_event_building(const std::string& label, const std::vector<std::string>& flag_sets, const std::string& extra,
                                    std::size_t excluded = 0) {
    const std::string suite = EVB_CONFORMANCE_BINARY;
    const std::string e = evbench_binary();
    std::string script = "set -o pipefail; hostname vm; printf \"127.0.0.1 localhost\\n10.0.0.1 vm\\n\" > /etc/hosts; " + suite +
        " --gtest_color=no --gtest_filter=EveryDriver/Conformance.*/" + label + "; ";
    for (const auto& flags : flag_sets)
        for (const std::string point : {"--launch-local 2", "--launch-local 3 --protocol push", "--launch-local 3 --protocol pull-noem",
                                        "--launch-local 4 --ppn 2 --nodes 2"})
            script +=
                e + " " + flags + " " + point + " --events 200 --fragment-size 64KiB --verify full --quiet | tail -1; echo \"rc=$?\"; ";
    const std::size_t runs = 4 * flag_sets.size();
    const std::size_t tests = 10; // the suite's tests (kDrivers' reasons say which an instance skips)
    auto r = run_command(
        std::string(EVBENCH_SOURCE_DIR) + "/tests/vm/run-in-vm.sh -t 1500 -b " + suite + " -b " + e + extra + " -- '" + script + "'", 1500);
    const std::string shown = inner_gtest_output(r.out);
    ASSERT_EQ(r.exit_code, 0) << shown << inner_gtest_output(r.err);
    EXPECT_EQ(count(r.out, "[       OK ] EveryDriver/Conformance."), tests - excluded) << shown;
    const std::string skipped_case = "[  SKIPPED ] EveryDriver/Conformance."; // a variable: the failure text shows its name
    EXPECT_EQ(count(r.out, skipped_case), 2 * excluded) << shown; // listed twice
    EXPECT_NE(r.out.find("[  PASSED  ] " + std::to_string(tests - excluded) + " test"), std::string::npos) << shown;
    EXPECT_EQ(count(r.out, "200 events built"), runs) << shown;
    EXPECT_EQ(count(r.out, "errors: none"), runs) << shown;
    EXPECT_EQ(count(r.out, "rc=0"), runs) << shown;
}

} // namespace

#ifdef EVB_HAVE_OFI
TEST(OfiOnSoftRoce, VerbsOfiRxmPassesTheConformanceSuiteAndBuildsEvents) {
    conformance_and_event_building("ofi_verbs", {"--transport ofi --ofi-provider \"verbs;ofi_rxm\""}, "");
}
#endif

#ifdef EVB_HAVE_UCX
TEST(UcxOnSoftRoce, RcVerbsPassesTheConformanceSuiteAndBuildsEvents) {
    const std::string modules = "/usr/lib/x86_64-linux-gnu/ucx/";
    // rc_verbs puts are RDMA writes; the default (active messages) moves large fragments by rendezvous.
    conformance_and_event_building(
        "ucx_rc_verbs", {"--transport ucx --ucx-tls rc_verbs,tcp --ucx-write put", "--transport ucx --ucx-tls rc_verbs,tcp"},
        " -b " + modules + "libuct_ib.so.0 -b " + modules + "libuct_rdmacm.so.0", 2); // peer death, a stopped peer: see kDrivers
}
#endif
