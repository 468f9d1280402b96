// --rails: the rails sleep together (drivers/transport/rails_transport.hpp). A rank sleeps on the
// wait objects of every rail; a rail that has none (it offers no descriptor) makes the whole
// rank nap instead, so that rail is polled again soon rather than after the others wake.
#include "drivers/transport/rails_transport.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

using namespace evb;

// A rail that only answers prepare_wait: its plan, with a descriptor (sleep) or none.
class WaitingRail final : public Transport {
public:
    WaitingRail(WaitPlan plan, int fd) : plan_(plan), fd_(fd) {}
    const char* name() const override { return "waiting"; }
    std::uint32_t rank() const override { return 0; }
    std::uint32_t size() const override { return 2; }
    Capabilities capabilities() const override { return {}; }
    std::string local_address() override { return ""; }
    void connect(const std::vector<std::string>&, Picoseconds) override {}
    MemoryRegion register_memory(std::byte*, std::size_t) override { return {}; }
    PostStatus post_send(std::uint32_t, const CommandBytes&) override { return PostStatus::ok; }
    PostStatus post_write(std::uint32_t, const WriteRequest&) override { return PostStatus::ok; }
    std::size_t poll(std::span<Completion>) override { return 0; }
    WaitPlan prepare_wait(std::vector<int>& fds) override {
        if (plan_ == WaitPlan::sleep && fd_ >= 0) fds.push_back(fd_);
        return plan_;
    }

private:
    WaitPlan plan_;
    int fd_; // -1: no wait object
};

using WaitPlan = Transport::WaitPlan;
constexpr WaitPlan sleep = WaitPlan::sleep, poll_again = WaitPlan::poll_again, yield = WaitPlan::yield;

RailsTransport rails(std::vector<std::pair<WaitPlan, int>> each) {
    std::vector<std::unique_ptr<Transport>> r;
    std::vector<std::string> nics;
    for (auto [plan, fd] : each) {
        r.push_back(std::make_unique<WaitingRail>(plan, fd));
        nics.push_back("nic" + std::to_string(nics.size()));
    }
    return RailsTransport(std::move(r), std::move(nics));
}

TEST(RailsWait, EveryRailsDescriptorWakesTheRank) {
    auto t = rails({{sleep, 7}, {sleep, 9}});
    std::vector<int> fds{3}; // what the caller had already
    EXPECT_EQ(t.prepare_wait(fds), sleep);
    EXPECT_EQ(fds, (std::vector<int>{3, 7, 9}));
}

TEST(RailsWait, ARailWithWorkKeepsTheRankPolling) {
    auto t = rails({{sleep, 7}, {poll_again, 9}});
    std::vector<int> fds;
    EXPECT_EQ(t.prepare_wait(fds), poll_again);
    auto u = rails({{yield, -1}, {poll_again, 9}});
    EXPECT_EQ(u.prepare_wait(fds), poll_again);
}

// A rail without a wait object whose own writes need its calls: the rank lets a neighbour run,
// then polls again, whatever the other rails offered.
TEST(RailsWait, ARailThatYieldsMakesTheRankYield) {
    auto t = rails({{sleep, 7}, {yield, -1}});
    std::vector<int> fds{3};
    EXPECT_EQ(t.prepare_wait(fds), yield);
    EXPECT_EQ(fds, (std::vector<int>{3}));
}

// Offered alone, the other rail's descriptor would put the rank to sleep up to its next timer
// while the rail without a wait object went unpolled.
TEST(RailsWait, ARailWithNoWaitObjectMakesTheRankNap) {
    auto t = rails({{sleep, 7}, {sleep, -1}});
    std::vector<int> fds{3};
    EXPECT_EQ(t.prepare_wait(fds), sleep);
    EXPECT_EQ(fds, (std::vector<int>{3})); // nothing of the rails': the reactor naps
}

} // namespace
