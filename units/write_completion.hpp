// What a unit learns about one-sided writes: one it posted has finished (its buffer may be
// reused), or a peer's write landed in one of its pool's blocks. The executor translates the
// transport's completions into these; units never see a transport type.
#pragma once
#include <cstdint>

namespace evb {

struct WriteCompletion {
    enum class Kind : std::uint8_t {
        write_done,      // a Context::write of this unit finished; `cookie` is the one it passed
        write_arrived,   // a peer's write landed: `imm`, `offset` in our pool, `length`
    };
    Kind kind{};
    std::uint32_t imm = 0;
    std::uint64_t cookie = 0;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
    bool dropped = false;   // write_done: its target was lost, the bytes never arrived
};

} // namespace evb
