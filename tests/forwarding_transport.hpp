// A transport that hands every call to a real one: tests derive from it to change one behaviour
// the way some provider does (touch memory while closing, never return from a call).
#pragma once
#include "drivers/transport/transport.hpp"

#include <memory>

namespace evb::test {

class ForwardingTransport : public Transport {
public:
    explicit ForwardingTransport(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
    const char* name() const override { return inner_->name(); }
    std::uint32_t rank() const override { return inner_->rank(); }
    std::uint32_t size() const override { return inner_->size(); }
    Capabilities capabilities() const override { return inner_->capabilities(); }
    std::string describe() const override { return inner_->describe(); }
    NicName nic() const override { return inner_->nic(); }
    std::string local_address() override { return inner_->local_address(); }
    void connect(const std::vector<std::string>& a, Picoseconds t) override { inner_->connect(a, t); }
    MemoryRegion register_memory(std::byte* base, std::size_t length) override { return inner_->register_memory(base, length); }
    void deliver_write_heads(const MemoryRegion& region) override { inner_->deliver_write_heads(region); }
    std::string registration_card() const override { return inner_->registration_card(); }
    void learn_registrations(const std::vector<std::string>& cards) override { inner_->learn_registrations(cards); }
    std::vector<RailBytes> rail_bytes() const override { return inner_->rail_bytes(); }
    PostStatus post_send(std::uint32_t peer, const CommandBytes& c) override { return inner_->post_send(peer, c); }
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override { return inner_->post_write(peer, w); }
    std::string last_error() const override { return inner_->last_error(); }
    std::size_t poll(std::span<Completion> out) override { return inner_->poll(out); }
    WaitPlan prepare_wait(std::vector<int>& fds) override { return inner_->prepare_wait(fds); }
    void fence(std::uint32_t peer) override { inner_->fence(peer); }

private:
    std::unique_ptr<Transport> inner_;
};

} // namespace evb::test
