// The BU: owns `credits` slots of N fragments each in its registered region. PULL: announces a
// credit per slot to the EM, and for each assigned event requests fragments from RUs in the
// schedule's order, at most `parallel` outstanding per slot. PUSH: the RUs write unasked.
// PULL without EM: builds events e = index + k B by itself (B BUs). A fragment is in when every write of
// the message mix has landed at its place; then it is checked.
#pragma once
#include "units/barrel_sync_pacer.hpp"
#include "units/own_events.hpp"
#include "core/memory_pool.hpp"
#include "units/message_mix.hpp"
#include "units/piece_masks.hpp"
#include "units/pull_requester.hpp"
#include "units/unit.hpp"

#include <optional>
#include <vector>

namespace evb {

class BuilderUnit final : public Unit, private BarrelSyncPacer::Builder, private OwnEvents::Builder, private PullRequester::Builder {
public:
    BuilderUnit(const UnitSetup& setup, std::uint32_t index, MemoryPool& slots);
    void on_start(Context& ctx) override;
    void on_message(Context& ctx, const Message& msg) override;
    void on_completion(Context& ctx, const WriteCompletion& c) override;
    void on_unit_lost(Context& ctx, UnitAddress lost) override;
    void on_end_now(Context& ctx) override;
    bool finished() const override;
    void on_stop(Context& ctx, bool in_flight_is_missing) override;
    std::vector<MemoryPool*> pools() override { return {&pool_}; }
    bool receives_writes() const override { return true; }
    bool takes_write_heads() const override { return true; }

    std::uint64_t built() const { return built_; }
    std::uint32_t busy_slots() const { return busy_; }

private:
    struct Slot {
        std::uint32_t block = 0; // block of the slot pool
        bool assigned = false; // event id known
        bool active = false; // credit given out or event in progress
        std::uint64_t event = 0;
        Picoseconds started{};
        std::uint32_t received = 0; // fragments whose every piece is in
        std::uint32_t missing = 0; // fragments of lost RUs it will never get
        bool reassigned = false; // the event came from a lost BU
    };

    void activate(std::uint32_t slot);
    void announce(Context& ctx, std::uint32_t slot);
    void begin(Context& ctx, std::uint32_t slot, std::uint64_t event);
    // PUSH: the fragments that landed before the slot's event was known, checked once it is.
    void accept_early_fragments(Context& ctx, std::uint32_t slot);
    // What PULL's requester asks of it.
    void send_request(Context& ctx, std::uint32_t slot, std::uint32_t ru) override;
    // What barrel-sync's pacer asks of it.
    bool has_step_left(std::uint32_t slot) const override;
    void request(Context& ctx, std::uint32_t slot, std::uint32_t ru) override { pull_->request(ctx, slot, ru); }
    bool done_building() const override { return finished(); }
    // What PULL without EM's own events ask of it.
    bool slot_free(std::uint32_t slot) const override { return !slots_[slot].active; }
    void start_event(Context& ctx, std::uint32_t slot, std::uint64_t event, bool reassigned) override;
    bool ru_lost(std::uint32_t ru) const override;
    bool all_in(const Slot& s) const { return s.received + s.missing == nodes_; } // an event under way still has RUs to ask
    void complete(Context& ctx, std::uint32_t slot);
    void check(Context& ctx, const Slot& s, std::uint32_t source);
    // A piece's header handed over with its completion (the simulator): checked on arrival.
    void check_head(Context& ctx, const Slot& s, std::uint32_t source, std::uint32_t piece, const WriteCompletion& c);
    // PUSH, heads handed over: the headers of `pieces` of a fragment still arriving, kept in the slot.
    void check_kept_heads(Context& ctx, const Slot& s, std::uint32_t source, std::uint32_t pieces);
    bool in_place(const Slot& s, std::uint32_t source, std::uint32_t piece, const WriteCompletion& c) const;
    std::uint64_t fragment_offset(const Slot& s, std::uint32_t source) const;

    const UnitSetup& setup_;
    const UnitConfig& config_;
    std::uint32_t index_;
    std::uint32_t nodes_; // RUs: the fragments of an event
    MemoryPool& pool_;
    std::uint64_t stride_;
    std::vector<Slot> slots_; // one per credit
    MessageMix mix_;
    PieceMasks received_; // per slot and RU
    bool heads_handed_over_ = false; // the transport gives each write's head with its completion
    std::uint32_t busy_ = 0;
    std::uint64_t built_ = 0;
    bool end_received_ = false;
    std::uint64_t assigned_total_ = 0; // from the EM's end message
    std::optional<PullRequester> pull_; // PULL (with or without EM); none: PUSH, the RUs write unasked
    std::optional<BarrelSyncPacer> sync_; // barrel-sync: requests paced a phase at a time
    std::optional<OwnEvents> own_; // PULL without EM: events of its own, and takeovers
    // --on-failure continue
    bool survive_;
    std::vector<std::uint32_t> lost_rus_; // few: a list, not a flag per RU
};

} // namespace evb
