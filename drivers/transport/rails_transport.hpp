// Several NICs as one transport (--rails): an instance of the driver per NIC, each with this
// rank's number, every region registered on each. Commands to a peer keep to one rail (peer mod
// rails), so their order per peer holds. Writes are spread by fragment segment: each write to a
// peer takes the next rail in turn, so a phase with a single peer (barrel shift) still keeps
// every rail busy, which spreading by peer would not. A write and its arrival notice travel on
// the same rail, so no unit waits on another rail's order.
// Peers name a region by the key this transport returns (its registration number + 1); the key
// each rail knows it by travels in the registration card the executor exchanges.
#pragma once
#include "drivers/transport/transport.hpp"

#include <memory>
#include <string>
#include <vector>

namespace evb {

class Driver;

// "rxe0,rxe1" -> {"rxe0", "rxe1"} (an empty name stays, for validate() to name).
std::vector<std::string> nic_list(const std::string& rails);

class RailsTransport final : public Transport {
public:
    // nics[i] names rails[i] (for describe() and rail_bytes()).
    RailsTransport(std::vector<std::unique_ptr<Transport>> rails, std::vector<std::string> nics);
    // One of `driver`'s transports on each NIC of the list `rails` ("rxe0,rxe1").
    static std::unique_ptr<RailsTransport> make(const Driver& driver, std::uint32_t rank, std::uint32_t ranks, const std::string& rails);

    const char* name() const override { return rails_.front()->name(); }
    std::uint32_t rank() const override { return rails_.front()->rank(); }
    std::uint32_t size() const override { return rails_.front()->size(); }
    Capabilities capabilities() const override;
    std::string describe() const override;
    NicName nic() const override { return rails_.front()->nic(); }

    std::string local_address() override; // a JSON array: each rail's address
    void connect(const std::vector<std::string>& addresses, Picoseconds timeout) override;
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    std::string registration_card() const override; // a JSON array: per region, its key on each rail
    void learn_registrations(const std::vector<std::string>& cards) override;

    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::string last_error() const override { return last_error_; }
    std::size_t poll(std::span<Completion> out) override;
    // Sleeps when every rail can, woken by any; a rail with no wait object (it offers none) makes
    // the whole a nap, so that it is polled again soon, and one that yields makes the whole yield.
    WaitPlan prepare_wait(std::vector<int>& fds) override {
        const std::size_t first = fds.size();
        bool nap = false, yield = false;
        for (auto& r : rails_) {
            const std::size_t before = fds.size();
            const WaitPlan plan = r->prepare_wait(fds);
            if (plan == WaitPlan::poll_again) return plan;
            yield = yield || plan == WaitPlan::yield;
            nap = nap || fds.size() == before;
        }
        if (nap || yield) fds.resize(first);
        return yield ? WaitPlan::yield : WaitPlan::sleep;
    }
    std::vector<RailBytes> rail_bytes() const override;
    void fence(std::uint32_t peer) override {
        for (auto& r : rails_) r->fence(peer);
    }

private:
    std::vector<std::unique_ptr<Transport>> rails_;
    std::vector<std::string> nics_;
    std::vector<std::vector<MemoryRegion>> regions_; // [region][rail]
    std::vector<std::vector<std::vector<std::uint64_t>>> peer_keys_; // [peer][region][rail]
    std::vector<std::uint32_t> next_rail_; // per peer: the rail of its next write
    std::vector<std::uint64_t> bytes_; // per rail
    std::size_t first_polled_ = 0; // rotates, so no rail starves the others
    std::string last_error_;
};

} // namespace evb
