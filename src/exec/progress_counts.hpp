// The figures of a progress line: bytes that crossed the network each way and events built, each
// since the run's start (the warm-up's end does not set them back, so they only grow and an
// interval's figures are differences of two of them), and writes in flight now. What an
// endpoint's thread publishes, what a rank sends rank 0 in its progress record, what rank 0 sums
// over the ranks and what every executor hands its observer: one type, one sum, one record format.
// built_bytes is what the BUs built from (their own RU's fragments included), for --until steady.
#pragma once
#include "core/time.hpp"
#include "units/node_stats.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>

namespace evb {

// Ranks take their counts ten times per progress interval (a line then counts every rank's work
// up to a tenth of an interval before its time), and --until steady samples the BUs as often.
inline Picoseconds progress_record_period(Picoseconds interval) { return std::max(Picoseconds(1), Picoseconds(interval.count() / 10)); }

struct ProgressCounts {
    std::uint64_t bytes_in = 0, bytes_out = 0, events = 0, in_flight = 0, built_bytes = 0;

    static ProgressCounts of(const NodeStats& s) {
        return {s.network_bytes_in_before_window + s.network_bytes_in(), s.network_bytes_out_before_window + s.network_bytes_out(),
                s.events_before_window + s.events_built, s.in_flight, s.bytes_in_before_window + s.bytes_in};
    }
    ProgressCounts& operator+=(const ProgressCounts& o) {
        bytes_in += o.bytes_in;
        bytes_out += o.bytes_out;
        events += o.events;
        in_flight += o.in_flight;
        built_bytes += o.built_bytes;
        return *this;
    }
    nlohmann::json to_json() const {
        return {
            {"bytes_in", bytes_in}, {"bytes_out", bytes_out}, {"events", events}, {"in_flight", in_flight}, {"built_bytes", built_bytes}};
    }
    // A rank's record: throws nlohmann::json's exceptions for a field missing or not a count.
    static ProgressCounts from_json(const nlohmann::json& j) {
        return {j.at("bytes_in").get<std::uint64_t>(), j.at("bytes_out").get<std::uint64_t>(), j.at("events").get<std::uint64_t>(),
                j.at("in_flight").get<std::uint64_t>(), j.at("built_bytes").get<std::uint64_t>()};
    }
};

} // namespace evb
