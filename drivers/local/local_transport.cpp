#include "local_transport.hpp"

#include <cstring>

namespace evb {

LocalFabric::LocalFabric(std::uint32_t ranks) : endpoints_(ranks) {}

MemoryRegion LocalTransport::register_memory(std::byte* base, std::size_t length) {
    auto& regions = fabric_.endpoint(rank_).regions;
    regions.push_back({base, length, regions.size() + 1});
    return regions.back();
}

PostStatus LocalTransport::post_send(std::uint32_t peer, const Message& msg) {
    if (peer >= size()) return PostStatus::error;
    Completion c;
    c.kind = Completion::Kind::message;
    c.peer = rank_;
    c.msg = msg;
    fabric_.endpoint(peer).inbound.push(c);
    return PostStatus::ok;
}

PostStatus LocalTransport::post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset,
                                      std::uint64_t remote_key, std::uint64_t remote_offset, std::size_t length,
                                      std::uint32_t imm, std::uint64_t cookie) {
    if (peer >= size()) return PostStatus::error;
    auto& target = fabric_.endpoint(peer);
    if (remote_key == 0 || remote_key > target.regions.size()) return PostStatus::error;
    const MemoryRegion& dst = target.regions[remote_key - 1];
    if (remote_offset + length > dst.length || local_offset + length > local.length) return PostStatus::error;
    std::memcpy(dst.base + remote_offset, local.base + local_offset, length);

    Completion arrived;
    arrived.kind = Completion::Kind::write_arrived;
    arrived.peer = rank_;
    arrived.imm = imm;
    arrived.offset = remote_offset;
    arrived.length = length;
    target.inbound.push(arrived);

    Completion done;
    done.kind = Completion::Kind::write_done;
    done.peer = peer;
    done.cookie = cookie;
    done.length = length;
    fabric_.endpoint(rank_).inbound.push(done);
    return PostStatus::ok;
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
