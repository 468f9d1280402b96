#include "drivers/local/local_transport.hpp"

#include "drivers/transport/loopback_delivery.hpp"

namespace evb {

LocalFabric::LocalFabric(std::uint32_t ranks) : endpoints_(ranks) {}

MemoryRegion LocalTransport::register_memory(std::byte* base, std::size_t length) {
    auto& regions = fabric_.endpoint(rank_).regions;
    regions.push_back({base, length, regions.size() + 1});
    return regions.back();
}

PostStatus LocalTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (peer >= size()) {
        last_error_ = no_such_rank(peer, size());
        return PostStatus::error;
    }
    deliver_message({rank_, fabric_.endpoint(rank_).inbound}, {peer, fabric_.endpoint(peer).inbound}, command);
    return PostStatus::ok;
}

PostStatus LocalTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (peer >= size()) {
        last_error_ = no_such_rank(peer, size());
        return PostStatus::error;
    }
    auto& target = fabric_.endpoint(peer);
    last_error_ = deliver_write({rank_, fabric_.endpoint(rank_).inbound}, {peer, target.inbound}, target.regions, w);
    return last_error_.empty() ? PostStatus::ok : PostStatus::error;
}

std::size_t LocalTransport::poll(std::span<Completion> out) {
    auto& in = fabric_.endpoint(rank_).inbound;
    std::size_t n = 0;
    while (n < out.size() && !in.empty()) {
        out[n++] = in.front();
        in.pop();
    }
    return n;
}

} // namespace evb
