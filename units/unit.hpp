// A reactive unit: four entry points, no I/O, no threads, no sleeps of its own.
#pragma once
#include "units/context.hpp"
#include "units/fragment_format.hpp"
#include "scheduling/schedule.hpp"
#include "units/write_completion.hpp"

#include <vector>

namespace evb {

// What every unit is built from: the run's configuration and its shared, pure helpers.
struct UnitSetup {
    const UnitConfig& config;
    const FragmentSizer& sizer;
    const Schedule& schedule;
};

class Unit {
public:
    virtual ~Unit() = default;
    virtual void on_start(Context& ctx) = 0;
    virtual void on_message(Context& ctx, const Message& msg) = 0;
    // write_done for writes this unit posted, write_arrived for writes into its region.
    virtual void on_completion(Context& ctx, const WriteCompletion& c) = 0;
    virtual void on_timer(Context& ctx, TimerId id) {
        (void)ctx;
        (void)id;
    }
    // A peer unit is gone for good (--on-failure continue): nothing more comes from it, nothing
    // posted to it arrives, and writes to it still in flight finish as dropped.
    virtual void on_unit_lost(Context& ctx, UnitAddress lost) {
        (void)ctx;
        (void)lost;
    }
    // The run ends now, before its --duration (it was interrupted): the unit starts nothing new,
    // as at the duration's end, and what is under way finishes.
    virtual void on_end_now(Context& ctx) { (void)ctx; }
    // True once the unit will initiate nothing more (it may still serve requests).
    virtual bool finished() const = 0;
    // Called when the run ends. Unless the run was cut at its duration, whatever is still
    // incomplete counts as missing. Units also record their peak memory here.
    virtual void on_stop(Context& ctx, bool in_flight_is_missing) {
        (void)ctx;
        (void)in_flight_is_missing;
    }
    // Pools the executor registers with the transport: blocks this unit writes from, or that
    // peers write into.
    virtual std::vector<MemoryPool*> pools() { return {}; }
    // True for the unit that peers' writes land in (at most one per rank; the immediate value
    // addresses inside it).
    virtual bool receives_writes() const { return false; }
    // True when the unit reads no more than the first bytes of each write that lands (its
    // header): a transport that does not move the bytes (the simulator) may then hand those over
    // with the completion and leave the unit's pool untouched.
    virtual bool takes_write_heads() const { return false; }
};

} // namespace evb
