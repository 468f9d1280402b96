#include "drivers/transport/loopback_delivery.hpp"

#include "drivers/transport/write_target.hpp"

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
                          const MemoryRegion& local, std::size_t local_offset, std::uint64_t remote_key, std::uint64_t remote_offset,
                          std::size_t length, std::uint32_t imm, std::uint64_t cookie) {
    const WriteTarget dst = write_target(target_regions, remote_key, remote_offset, length);
    if (!dst.at) return "rank " + std::to_string(to.rank) + " refused " + dst.why;
    if (std::string why = local_source_error(local, local_offset, length); !why.empty()) return why;
    std::memcpy(dst.at, local.base + local_offset, length);

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
