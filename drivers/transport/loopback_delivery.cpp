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
                          const WriteRequest& w) {
    const WriteTarget dst = write_target(target_regions, w.remote_key, w.remote_offset, w.length);
    if (!dst.at) return "rank " + std::to_string(to.rank) + " refused " + dst.why;
    if (std::string why = local_source_error(w.local, w.local_offset, w.length); !why.empty()) return why;
    std::memcpy(dst.at, w.local.base + w.local_offset, w.length);

    to.completions.push(write_arrived(from.rank, w.imm, w.remote_offset, w.length));

    Completion done;
    done.kind = Completion::Kind::write_done;
    done.peer = to.rank;
    done.cookie = w.cookie;
    done.length = w.length;
    from.completions.push(done);
    return {};
}

} // namespace evb
