#include "loopback_delivery.hpp"

#include <cstring>

namespace evb {

void deliver_message(const LoopbackEnd& from, const LoopbackEnd& to, const CommandBytes& command) {
    Completion c;
    c.kind = Completion::Kind::message;
    c.peer = from.rank;
    c.command = command;
    to.completions.push(c);
}

std::string deliver_write(const LoopbackEnd& from, const LoopbackEnd& to, std::span<const MemoryRegion> target_regions,
                          const MemoryRegion& local, std::size_t local_offset, std::uint64_t remote_key,
                          std::uint64_t remote_offset, std::size_t length, std::uint32_t imm, std::uint64_t cookie) {
    if (remote_key == 0 || remote_key > target_regions.size())
        return "write to unknown region key " + std::to_string(remote_key) + " of rank " + std::to_string(to.rank);
    const MemoryRegion& dst = target_regions[remote_key - 1];
    if (remote_offset + length > dst.length) return "write beyond the end of rank " + std::to_string(to.rank) + "'s region";
    if (local_offset + length > local.length) return "write from beyond the end of the local region";
    std::memcpy(dst.base + remote_offset, local.base + local_offset, length);

    Completion arrived;
    arrived.kind = Completion::Kind::write_arrived;
    arrived.peer = from.rank;
    arrived.imm = imm;
    arrived.offset = remote_offset;
    arrived.length = length;
    to.completions.push(arrived);

    Completion done;
    done.kind = Completion::Kind::write_done;
    done.peer = to.rank;
    done.cookie = cookie;
    done.length = length;
    from.completions.push(done);
    return {};
}

} // namespace evb
