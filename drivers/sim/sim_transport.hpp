// One rank's endpoint on the simulated fabric: posts go to the SimNetwork, completions come back
// from it. Never returns no_resource: the simulated host adapter queues every work request.
#pragma once
#include "drivers/sim/sim_network.hpp"
#include "drivers/transport/transport.hpp"

namespace evb {

class SimTransport final : public Transport {
public:
    SimTransport(SimNetwork& network, std::uint32_t rank) : network_(network), rank_(rank) {}
    const char* name() const override { return "sim"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return network_.ranks(); }
    Capabilities capabilities() const override { return {true, std::size_t{1} << 30, 64}; }
    std::string local_address() override { return "sim:" + std::to_string(rank_); }
    void connect(const std::vector<std::string>&, Picoseconds) override {}
    MemoryRegion register_memory(std::byte* base, std::size_t length) override { return network_.register_memory(rank_, base, length); }
    void deliver_write_heads(const MemoryRegion& region) override { network_.deliver_write_heads(rank_, region.key); }
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override {
        last_error_ = network_.send(rank_, peer, command);
        return last_error_.empty() ? PostStatus::ok : PostStatus::error;
    }
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override {
        last_error_ = network_.write(rank_, peer, w);
        return last_error_.empty() ? PostStatus::ok : PostStatus::error;
    }
    std::string last_error() const override { return last_error_; }
    std::size_t poll(std::span<Completion> out) override {
        auto& in = network_.inbound(rank_);
        std::size_t n = 0;
        for (; n < out.size() && !in.empty(); ++n) {
            out[n] = in.front();
            in.pop();
        }
        return n;
    }

private:
    SimNetwork& network_;
    std::uint32_t rank_;
    std::string last_error_;
};

} // namespace evb
