// What one node's units counted: RU bytes out, BU bytes in and events built with their build
// latency, EM assignments, and every kind of error. Merged by node index at rank 0.
#pragma once
#include "core/latency_histogram.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace evb {

struct ErrorCounts {
    std::uint64_t bad_header = 0; // wrong magic, event, source or length
    std::uint64_t bad_payload = 0; // checksum or event stamp mismatch (--verify=full)
    std::uint64_t duplicate = 0; // a fragment arrived twice for one event
    std::uint64_t missing = 0; // fragments never arrived for events in flight at the end
    std::uint64_t unexpected = 0; // a write or message no state expected
    std::uint64_t credit_overflow = 0; // a BU announced more credits than configured
    std::uint64_t total() const { return bad_header + bad_payload + duplicate + missing + unexpected + credit_overflow; }
    void merge(const ErrorCounts& o);
    std::string describe() const; // "2 duplicate, 1 missing"
};

// What one receiver got in one phase of a shift scan. Its rate is taken over the phase's steady
// part (traffic_receiver.cpp): from its (w+1)-th message to the last before the phase's end.
struct PhaseFlow {
    std::uint64_t bytes = 0; // every message of the phase
    std::uint64_t messages = 0;
    std::uint64_t rate_messages = 0; // messages in the steady part
    std::uint64_t rate_bytes = 0; // of them, all but the first: what arrived in [rate_first, rate_last]
    Picoseconds rate_first{}, rate_last{};
    void add(std::uint64_t message_bytes, Picoseconds at, bool steady);
    void merge(const PhaseFlow& o);
    // Gb/s over the steady part; 0 with fewer than 2 messages in it.
    double gbps() const;
};

// A rank this node saw lost (--on-failure continue): which, when it learned of it, and how.
struct NodeLoss {
    std::uint32_t rank = 0;
    Picoseconds at{}; // since the run started
    std::string how; // "connection closed", "no heartbeat for 1 s", "injected failure"
    Picoseconds failed_at{
        -1}; // when it failed, where known (the simulator's --fail), or fell silent (--heartbeat: last heard); -1: unknown
};

struct NodeStats {
    std::uint32_t node = 0;
    std::uint64_t bytes_out = 0; // RU: fragment bytes written, metadata included
    std::uint64_t fragments_out = 0;
    std::uint64_t writes_out = 0; // RU: writes done (data and metadata segments of the message mix)
    std::uint64_t writes_in = 0; // BU: writes that landed
    std::uint64_t bytes_in = 0; // BU: fragment bytes received, metadata included
    // Of bytes_out and bytes_in, what the node's own RU wrote to its own BU (folded layout): it
    // never crosses the network. network_*() leave it out.
    std::uint64_t bytes_out_local = 0, bytes_in_local = 0;
    std::uint64_t fragments_in = 0;
    std::uint64_t events_built = 0;
    std::uint64_t events_assigned = 0; // EM (counted on the EM's node) or self-assigned (no EM)
    std::uint64_t in_flight = 0; // BU: fragment requests outstanding right now
    std::uint64_t peak_ru_bytes = 0; // RU buffer memory ever in use
    std::uint64_t peak_bu_bytes = 0; // BU buffer memory ever in use
    Picoseconds first_build{}, last_build{}; // relative to the run start
    Picoseconds counted_from{}; // where the counts start: the end of --warmup, or 0 when the run ended within it
    ErrorCounts errors;
    LatencyHistogram latency;
    std::vector<PhaseFlow> phases; // shift-scan receiver: one per shift
    // Failures survived (--on-failure continue)
    std::uint64_t events_reassigned = 0; // EM: events of a lost BU handed to a survivor
    std::uint64_t events_rebuilt = 0; // BU: re-assigned events built (the lost BU may have built them too)
    std::uint64_t events_incomplete = 0; // BU: events built without the fragments of a lost RU
    std::uint64_t fragments_lost = 0; // BU: the fragments those events lack
    std::uint64_t events_built_by_lost = 0; // EM: events lost BUs had built and reported before they were lost
    std::vector<NodeLoss> losses; // earliest sighting per lost rank, with the earliest failure known
    void add_loss(const NodeLoss& loss); // keeps the earliest sighting of each rank

    // What the window's start set aside (begin_window): a node's counts since the run's start are
    // these plus the window's. Progress lines count intervals across the warm-up's end with them.
    std::uint64_t network_bytes_in_before_window = 0, network_bytes_out_before_window = 0, events_before_window = 0;
    std::uint64_t bytes_in_before_window = 0; // local fragments included: what the BU built

    std::uint64_t network_bytes_in() const { return bytes_in - bytes_in_local; }
    std::uint64_t network_bytes_out() const { return bytes_out - bytes_out_local; }
    void merge(const NodeStats& o);
    // The measurement window starts now, at `at` (the end of --warmup): bytes, fragments, writes,
    // events built, their latencies and build times count from zero; errors, losses, failover
    // counts, assignments, peaks and what is in flight carry on.
    void begin_window(Picoseconds at);
    nlohmann::json to_json() const;
    static NodeStats from_json(const nlohmann::json& j);
};

} // namespace evb
