// The one liveness mechanism (src/core/heartbeat.hpp), which the control plane and the drivers
// that cannot see a peer go away both use: a beat every timeout/4, each watched peer silent past
// the timeout reported once, and nothing at all when --heartbeat is 0.
#include "core/heartbeat.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

namespace {

using namespace evb;
using namespace evb::literals;

TEST(Heartbeat, ABeatIsDueAtTheStartThenOncePerQuarterOfTheTimeout) {
    Heartbeat h(400_ms);
    h.start(3, 1_s);
    EXPECT_EQ(h.period(), 100_ms);
    EXPECT_TRUE(h.beat_due(1_s));
    EXPECT_FALSE(h.beat_due(1_s));
    EXPECT_FALSE(h.beat_due(1_s + 99_ms));
    EXPECT_TRUE(h.beat_due(1_s + 100_ms));
    EXPECT_FALSE(h.beat_due(1_s + 150_ms));
    EXPECT_TRUE(h.beat_due(1_s + 250_ms)); // the next one a period after this one, not on a grid
    EXPECT_FALSE(h.beat_due(1_s + 300_ms));
}

// Looks every 50 ms, as a caller does at least once a period, up to `until`.
template <typename Note>
void look_until(Heartbeat& h, Picoseconds& at, Picoseconds until, Note&& note) {
    while (at < until) {
        at = std::min(until, at + 50_ms);
        h.find_silent(at, note);
    }
}

TEST(Heartbeat, AWatchedPeerSilentPastTheTimeoutIsReportedOnceWithWhenItWasLastHeard) {
    Heartbeat h(1_s);
    h.start(4, 0_s);
    h.forget(0); // itself
    h.heard(1, 500_ms);
    h.heard(2, 900_ms);
    std::vector<std::pair<std::uint32_t, Picoseconds>> silent;
    auto note = [&](std::uint32_t peer, Picoseconds last) { silent.emplace_back(peer, last); };
    Picoseconds at = 0_s;
    look_until(h, at, 1_s, note); // exactly the timeout is not past it
    EXPECT_TRUE(silent.empty());
    h.find_silent(1_s + 1_ps, note);
    ASSERT_EQ(silent.size(), 1u);
    EXPECT_EQ(silent[0], std::make_pair(3u, 0_s));
    at = 1_s + 1_ps;
    look_until(h, at, 1_s + 600_ms, note);
    ASSERT_EQ(silent.size(), 2u);
    EXPECT_EQ(silent[1], std::make_pair(1u, 500_ms));
    look_until(h, at, 10_s, note); // 3 and 1 are not reported again; 2 now is
    ASSERT_EQ(silent.size(), 3u);
    EXPECT_EQ(silent[2].first, 2u);
    look_until(h, at, 20_s, note);
    EXPECT_EQ(silent.size(), 3u);
    EXPECT_EQ(h.silence(), "sent nothing for 1 s (--heartbeat)");
}

// Before: a rank stopped for 2.5 s and woken found rank 0 silent for as long (its frames were
// still unread) and declared it lost, where rank 0 had declared the rank lost (over ofi, the
// woken BU said "lost the event manager" instead of "rank 0 declared this rank lost").
TEST(Heartbeat, AProcessThatDidNotLookForHalfTheTimeoutBlamesNoPeer) {
    Heartbeat h(1_s);
    h.start(3, 0_s);
    h.forget(0);
    std::vector<std::uint32_t> silent;
    auto note = [&](std::uint32_t peer, Picoseconds) { silent.push_back(peer); };
    Picoseconds at = 0_s;
    look_until(h, at, 400_ms, note);
    h.find_silent(2900_ms, note); // stopped from 0.4 s to 2.9 s: nobody is blamed for it
    EXPECT_TRUE(silent.empty());
    h.heard(1, 2900_ms + 1_ms); // the frames that waited are read
    at = 2900_ms;
    look_until(h, at, 3900_ms, note);
    EXPECT_TRUE(silent.empty()); // each peer has its whole timeout again from the wake
    look_until(h, at, 3901_ms, note);
    EXPECT_EQ(silent, std::vector<std::uint32_t>{2}); // peer 2 stays silent a timeout past the wake
}

TEST(Heartbeat, AForgottenPeerIsNeverSilentAndHearingFromItChangesNothing) {
    Heartbeat h(300_ms);
    h.start(3, 0_s);
    h.forget(1);
    h.forget(7); // not a peer: ignored
    h.heard(9, 1_s);
    int silent = 0;
    Picoseconds at = 0_s;
    look_until(h, at, 5_s, [&](std::uint32_t peer, Picoseconds) {
        EXPECT_NE(peer, 1u);
        ++silent;
    });
    EXPECT_EQ(silent, 2);
    EXPECT_EQ(h.silence(), "sent nothing for 0.3 s (--heartbeat)");
}

TEST(Heartbeat, OffWhenTheTimeoutIsZero) {
    Heartbeat h;
    h.start(2, 0_s);
    EXPECT_FALSE(h.on());
    EXPECT_FALSE(h.beat_due(0_s));
    EXPECT_FALSE(h.beat_due(1000_s));
    bool any = false;
    h.find_silent(1000_s, [&](std::uint32_t, Picoseconds) { any = true; });
    EXPECT_FALSE(any);
}

TEST(Heartbeat, NoBeatBeforeItStarts) {
    Heartbeat h(1_s);
    EXPECT_FALSE(h.beat_due(5_s)); // no peers yet: a transport not yet connected beats to nobody
}

} // namespace
