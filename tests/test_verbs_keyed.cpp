// rdma_cm's connection requests prove the run key (verbs_transport.hpp): a request that does not is
// rejected with one line naming its address, and ranks with the same key connect. Needs an RDMA
// device, so it runs in the soft-RoCE VM (Verbs.ConformanceSuiteOnSoftRoce runs it there) and is
// skipped elsewhere.
#include "core/run_key.hpp"
#include "drivers/verbs/verbs_transport.hpp"

#include <gtest/gtest.h>

#include <thread>

using namespace evb;

namespace {

struct Connected {
    std::string error[2];
};

// Ranks 0 and 1, each with its key, connect at once as two processes would.
Connected connect_pair(const RunKey& key0, const RunKey& key1, Picoseconds timeout) {
    VerbsTransport r0(0, 2, VerbsOptions{"", 1, "127.0.0.1"}, key0);
    VerbsTransport r1(1, 2, VerbsOptions{"", 1, "127.0.0.1"}, key1);
    const std::vector<std::string> addresses = {r0.local_address(), r1.local_address()};
    Connected c;
    std::thread t0([&] {
        try {
            r0.connect(addresses, timeout);
        } catch (const std::exception& e) {
            c.error[0] = e.what();
        }
    });
    try {
        r1.connect(addresses, timeout);
    } catch (const std::exception& e) {
        c.error[1] = e.what();
    }
    t0.join();
    return c;
}

} // namespace

TEST(VerbsKeyed, ARequestThatDoesNotProveTheRunKeyIsRejectedAndTheSameKeyConnects) {
    if (auto problem = VerbsTransport::device_problem("")) GTEST_SKIP() << *problem << " (this runs in the soft-RoCE VM)";
    const RunKey ours = RunKey::random(), strangers = RunKey::random();
    testing::internal::CaptureStderr();
    const Connected refused = connect_pair(strangers, ours, Picoseconds::from_seconds(3));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(refused.error[0].find("RDMA_CM_EVENT_REJECTED"), std::string::npos) << refused.error[0];
    EXPECT_NE(refused.error[1].find("timed out connecting to rank(s) 0"), std::string::npos) << refused.error[1];
    EXPECT_NE(err.find("dropped a connection request from "), std::string::npos) << err;
    EXPECT_NE(err.find(": it did not prove the run key"), std::string::npos) << err;

    const Connected same = connect_pair(ours, ours, Picoseconds::from_seconds(10));
    EXPECT_EQ(same.error[0], "");
    EXPECT_EQ(same.error[1], "");
}
