// --rails: the rails sleep together (drivers/transport/rails_transport.hpp). A rank sleeps on the
// wait objects of every rail; a rail that has none (it offers no descriptor) makes the whole
// rank nap instead, so that rail is polled again soon rather than after the others wake.
#include "rails_transport.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

using namespace evb;

// A rail that only answers prepare_wait: ready to sleep or not, with a descriptor or none.
class WaitingRail final : public Transport {
public:
    WaitingRail(bool ready, int fd) : ready_(ready), fd_(fd) {}
    const char* name() const override { return "waiting"; }
    std::uint32_t rank() const override { return 0; }
    std::uint32_t size() const override { return 2; }
    Capabilities capabilities() const override { return {}; }
    std::string local_address() override { return ""; }
    void connect(const std::vector<std::string>&, Picoseconds) override {}
    MemoryRegion register_memory(std::byte*, std::size_t) override { return {}; }
    PostStatus post_send(std::uint32_t, const CommandBytes&) override { return PostStatus::ok; }
    PostStatus post_write(std::uint32_t, const MemoryRegion&, std::size_t, std::uint64_t, std::uint64_t, std::size_t, std::uint32_t,
                          std::uint64_t) override {
        return PostStatus::ok;
    }
    std::size_t poll(std::span<Completion>) override { return 0; }
    bool prepare_wait(std::vector<int>& fds) override {
        if (ready_ && fd_ >= 0) fds.push_back(fd_);
        return ready_;
    }

private:
    bool ready_;
    int fd_;   // -1: no wait object
};

RailsTransport rails(std::vector<std::pair<bool, int>> each) {
    std::vector<std::unique_ptr<Transport>> r;
    std::vector<std::string> nics;
    for (auto [ready, fd] : each) {
        r.push_back(std::make_unique<WaitingRail>(ready, fd));
        nics.push_back("nic" + std::to_string(nics.size()));
    }
    return RailsTransport(std::move(r), std::move(nics));
}

TEST(RailsWait, EveryRailsDescriptorWakesTheRank) {
    auto t = rails({{true, 7}, {true, 9}});
    std::vector<int> fds{3};   // what the caller had already
    EXPECT_TRUE(t.prepare_wait(fds));
    EXPECT_EQ(fds, (std::vector<int>{3, 7, 9}));
}

TEST(RailsWait, ARailWithWorkKeepsTheRankPolling) {
    auto t = rails({{true, 7}, {false, 9}});
    std::vector<int> fds;
    EXPECT_FALSE(t.prepare_wait(fds));
}

// Offered alone, the other rail's descriptor would put the rank to sleep up to its next timer
// while the rail without a wait object went unpolled.
TEST(RailsWait, ARailWithNoWaitObjectMakesTheRankNap) {
    auto t = rails({{true, 7}, {true, -1}});
    std::vector<int> fds{3};
    EXPECT_TRUE(t.prepare_wait(fds));
    EXPECT_EQ(fds, (std::vector<int>{3}));   // nothing of the rails': the reactor naps
}

} // namespace
