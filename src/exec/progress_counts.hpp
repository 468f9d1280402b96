// The figures of a progress line: bytes that crossed the network each way, events built, writes
// in flight. What an endpoint's thread publishes, what a rank sends rank 0 in its progress record,
// and what rank 0 sums over the ranks: one type, one sum, one record format.
#pragma once
#include "units/node_stats.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>

namespace evb {

struct ProgressCounts {
    std::uint64_t bytes_in = 0, bytes_out = 0, events = 0, in_flight = 0;

    static ProgressCounts of(const NodeStats& s) { return {s.network_bytes_in(), s.network_bytes_out(), s.events_built, s.in_flight}; }
    ProgressCounts& operator+=(const ProgressCounts& o) {
        bytes_in += o.bytes_in;
        bytes_out += o.bytes_out;
        events += o.events;
        in_flight += o.in_flight;
        return *this;
    }
    // The totals a progress line shows, as the report reads them.
    NodeStats as_totals() const {
        NodeStats s;
        s.bytes_in = bytes_in;
        s.bytes_out = bytes_out;
        s.events_built = events;
        s.in_flight = in_flight;
        return s;
    }
    nlohmann::json to_json() const { return {{"bytes_in", bytes_in}, {"bytes_out", bytes_out}, {"events", events}, {"in_flight", in_flight}}; }
    // A rank's record: throws nlohmann::json's exceptions for a field missing or not a count.
    static ProgressCounts from_json(const nlohmann::json& j) {
        return {j.at("bytes_in").get<std::uint64_t>(), j.at("bytes_out").get<std::uint64_t>(), j.at("events").get<std::uint64_t>(),
                j.at("in_flight").get<std::uint64_t>()};
    }
};

} // namespace evb
