// What a unit learns about one-sided writes: one it posted has finished (its buffer may be
// reused), or a peer's write landed in one of its pool's blocks. The executor translates the
// transport's completions into these; units never see a transport type.
#pragma once
#include <cstddef>
#include <cstdint>

namespace evb {

struct WriteCompletion {
    enum class Kind : std::uint8_t {
        write_done, // a Context::write of this unit finished; `cookie` is the one it passed
        write_arrived, // a peer's write landed: `imm`, `offset` in our pool, `length`
    };
    Kind kind{};
    std::uint32_t imm = 0;
    std::uint64_t cookie = 0;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    bool dropped = false; // write_done: its target was lost, the bytes never arrived
    // write_arrived: the write's first head_bytes bytes, when the transport hands them over with
    // the completion instead of placing the write in memory (the simulator does, for units that
    // take_write_heads()); null when the bytes are in the unit's pool.
    const std::byte* head = nullptr;
    std::uint32_t head_bytes = 0;
};

} // namespace evb
