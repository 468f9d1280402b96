// What one node's units counted: RU bytes out, BU bytes in and events built with their build
// latency, EM assignments, and every kind of error. Merged by node index at rank 0.
#pragma once
#include "latency_histogram.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace evb {

struct ErrorCounts {
    std::uint64_t bad_header = 0;     // wrong magic, event, source or length
    std::uint64_t bad_payload = 0;    // checksum or event stamp mismatch (--verify=full)
    std::uint64_t duplicate = 0;      // a fragment arrived twice for one event
    std::uint64_t missing = 0;        // fragments never arrived for events in flight at the end
    std::uint64_t unexpected = 0;     // a write or message no state expected
    std::uint64_t credit_overflow = 0;// a BU announced more credits than configured
    std::uint64_t total() const { return bad_header + bad_payload + duplicate + missing + unexpected + credit_overflow; }
    void merge(const ErrorCounts& o);
    std::string describe() const;     // "2 duplicate, 1 missing"
};

struct NodeStats {
    std::uint32_t node = 0;
    std::uint64_t bytes_out = 0;        // RU: fragment bytes written, metadata included
    std::uint64_t fragments_out = 0;
    std::uint64_t writes_out = 0;       // RU: writes done (data and metadata segments of the message mix)
    std::uint64_t writes_in = 0;        // BU: writes that landed
    std::uint64_t bytes_in = 0;         // BU: fragment bytes received, metadata included
    std::uint64_t fragments_in = 0;
    std::uint64_t events_built = 0;
    std::uint64_t events_assigned = 0;  // EM (counted on the EM's node) or self-assigned (no EM)
    std::uint64_t in_flight = 0;        // BU: fragment requests outstanding right now
    std::uint64_t peak_ru_bytes = 0;    // RU buffer memory ever in use
    std::uint64_t peak_bu_bytes = 0;    // BU buffer memory ever in use
    Picoseconds first_build{}, last_build{};   // relative to the run start
    ErrorCounts errors;
    LatencyHistogram latency;

    void merge(const NodeStats& o);
    // Removes what `before` (an earlier snapshot of the same node) had counted in bytes,
    // fragments and events built: the counts of a measurement window after a warm-up.
    void subtract_flow(const NodeStats& before);
    nlohmann::json to_json() const;
    static NodeStats from_json(const nlohmann::json& j);
};

} // namespace evb
