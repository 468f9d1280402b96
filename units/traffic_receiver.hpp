// A micro-benchmark's receiver, hosted as the node's BU: a region of 2 w slots for every sender
// (w = --in-flight; UnitConfig::receive_slots says why), granted at the start and granted again once a message in them is checked (half a
// window at a time; one 64 B command per message in gather-cmd*, with its latency measured from
// the command to the message's last piece). Every message is checked like a fragment: header,
// source, size, sequence (no duplicate, none missing at the end), payload with --verify full.
#pragma once
#include "core/memory_pool.hpp"
#include "units/message_mix.hpp"
#include "scheduling/traffic_pattern.hpp"
#include "units/unit.hpp"

#include <vector>

namespace evb {

class TrafficReceiver final : public Unit {
public:
    TrafficReceiver(const UnitSetup& setup, std::uint32_t index, MemoryPool& slots);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    bool finished() const override;
    void on_stop(Context& ctx, bool in_flight_is_missing) override;
    std::vector<MemoryPool*> pools() override { return {&pool_}; }
    bool receives_writes() const override { return true; }

private:
    struct Sender {
        std::vector<std::uint32_t> pieces; // per slot: pieces landed
        std::vector<Picoseconds> granted_at; // per slot: when its command went out (gather-cmd*)
        std::uint64_t to_grant = 0; // slots checked and not granted again yet
        std::uint64_t next_seq = 0; // every sequence below it has arrived
        std::uint64_t seen = 0; // bit k: next_seq + k has arrived
        std::uint64_t received = 0;
        std::uint64_t expected = 0; // from the sender's end
        bool ended = false;
    };
    void grant(Context& ctx, std::uint32_t sender, std::uint64_t slots);
    void take(Context& ctx, std::uint32_t sender, std::uint32_t slot);
    bool sequence_is_new(Context& ctx, Sender& s, std::uint32_t sender, std::uint64_t seq);
    std::uint32_t block_of(std::uint32_t sender, std::uint32_t slot) const { return sender * config_.receive_slots() + slot; }

    const UnitSetup& setup_;
    const UnitConfig& config_;
    std::uint32_t index_;
    MemoryPool& pool_;
    MessageMix mix_;
    TrafficPattern pattern_;
    std::vector<Sender> senders_;
    std::uint32_t ended_ = 0;
};

} // namespace evb
