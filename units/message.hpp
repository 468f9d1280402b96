// Control messages between units: fixed 64 B, like DAQPIPE's commands. Fragment data does not
// travel in messages but as one-sided writes (transport.hpp) whose immediate value is a WriteImm.
#pragma once
#include <cstdint>
#include <cstring>

namespace evb {

enum class Role : std::uint8_t { readout = 0, builder = 1, manager = 2 };
constexpr int role_count = 3;
const char* role_name(Role r);

struct UnitAddress {
    Role role;
    std::uint32_t index; // RU/BU index = node; EM index is 0
};

enum class MessageType : std::uint8_t {
    credit = 1, // BU -> EM: one free slot (EM_REQUEST); slot/rkey/offset tell PUSH RUs where to write
    assign = 2, // EM -> BU: event assigned to a slot (EM_EVENT_ASSIGN); `count` 1: re-assigned from a lost BU
    request = 3, // BU -> RU: write your fragment of `event` at rkey/offset (RU_REQUEST)
    push_assign = 4, // EM -> RU: push your fragment of `event` to BU `peer_index` at rkey/offset
    end = 5, // EM -> BU: no more assignments; `count` events were assigned to you in total (sent
    // again with the new total when a lost BU's events are re-assigned after it)
    // (micro-benchmarks: sender -> receiver, `count` messages were sent to you)
    grant = 6, // micro-benchmarks, receiver -> sender: slots `count` (a bit mask) of your area at rkey/offset are free
    phase_done = 7, // barrel-sync, BU -> BU: my transfers of phase `count` are in; `slot` 1: I have nothing more to build
    takeover = 8, // PULL without EM, RU -> BU: BU `peer_index` is lost; I wrote its class completely below round
    // `event` and was asked for it below round `count` (class_delivery.hpp)
};

struct Message {
    MessageType type{};
    Role to{};
    Role from{};
    std::uint8_t reserved0 = 0;
    std::uint32_t from_index = 0;
    std::uint64_t event = 0;
    std::uint32_t slot = 0;
    std::uint32_t peer_index = 0; // push_assign: target BU
    std::uint64_t rkey = 0; // remote key of the target region
    std::uint64_t offset = 0; // offset in the target region (start of the slot for credit/push)
    std::uint64_t count = 0;
    std::uint64_t reserved1 = 0;
    std::uint64_t reserved2 = 0;
};
static_assert(sizeof(Message) == 64, "commands are 64 B on the wire");

// Immediate value of a fragment write: 12-bit slot, 5-bit piece of the fragment (message_mix.hpp),
// 15-bit source RU.
struct WriteImm {
    static std::uint32_t encode(std::uint32_t slot, std::uint32_t piece, std::uint32_t source) {
        return (slot << 20) | ((piece & 0x1F) << 15) | (source & 0x7FFF);
    }
    static std::uint32_t slot(std::uint32_t imm) { return imm >> 20; }
    static std::uint32_t piece(std::uint32_t imm) { return (imm >> 15) & 0x1F; }
    static std::uint32_t source(std::uint32_t imm) { return imm & 0x7FFF; }
};

} // namespace evb
