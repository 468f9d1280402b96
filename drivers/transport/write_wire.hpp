// How a write travels where a driver sends it as messages, for every such driver: tcp's frames,
// ucx's active messages (--ucx-write am), mpi's send/receive mode and psm2 carry a WriteHeader
// ahead of the bytes; a driver whose writes are one-sided (ofi, ucx's put mode, mpi's RMA mode)
// tells the target afterwards with a WriteNotice. The target checks either with write_target.
#pragma once
#include "drivers/transport/transport.hpp"

#include <cstdint>

namespace evb {

// 32 B, the same layout on every driver. `word` is the driver's own: a frame or control kind
// (tcp, mpi, psm2) or the sender's rank (ucx, whose active messages do not name it).
struct WriteHeader {
    std::uint32_t word = 0;
    std::uint32_t imm = 0;
    std::uint64_t key = 0, offset = 0, length = 0;
};
static_assert(sizeof(WriteHeader) == 32);

// A one-sided write has landed: where, and the writer's immediate (the key is the target's own).
struct WriteNotice {
    std::uint64_t offset = 0, length = 0;
    std::uint32_t imm = 0, pad = 0;
};
static_assert(sizeof(WriteNotice) == 24);

} // namespace evb
