// The in-process transport: every rank lives in this process and one executor thread drives
// them all. A write is a memcpy into the target's registered region at post time, followed by
// the same completions a real fabric would produce. The embedded default: no launcher needed.
#pragma once
#include "core/ring_queue.hpp"
#include "drivers/transport/transport.hpp"

#include <memory>
#include <vector>

namespace evb {

class LocalFabric {
public:
    explicit LocalFabric(std::uint32_t ranks);
    struct Endpoint {
        RingQueue<Completion> inbound{1024};
        std::vector<MemoryRegion> regions; // key = index + 1
    };
    Endpoint& endpoint(std::uint32_t rank) { return endpoints_[rank]; }
    std::uint32_t size() const { return static_cast<std::uint32_t>(endpoints_.size()); }

private:
    std::vector<Endpoint> endpoints_;
};

class LocalTransport final : public Transport {
public:
    LocalTransport(std::shared_ptr<LocalFabric> fabric, std::uint32_t rank) : shared_(std::move(fabric)), fabric_(*shared_), rank_(rank) {}
    const char* name() const override { return "local"; }
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return fabric_.size(); }
    Capabilities capabilities() const override { return {true, std::size_t{1} << 30, 64}; }
    std::string local_address() override { return "local:" + std::to_string(rank_); }
    void connect(const std::vector<std::string>&, Picoseconds) override {}
    MemoryRegion register_memory(std::byte* base, std::size_t length) override;
    PostStatus post_send(std::uint32_t peer, const CommandBytes& command) override;
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override;
    std::size_t poll(std::span<Completion> out) override;
    std::string last_error() const override { return last_error_; }

private:
    std::string last_error_;
    std::shared_ptr<LocalFabric> shared_; // every rank's transport keeps the fabric alive
    LocalFabric& fabric_;
    std::uint32_t rank_;
};

} // namespace evb
