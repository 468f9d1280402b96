// Where a micro-benchmark's sender sends its next message (paper 003 sec. 3.5): a pure function
// of (sender, messages it sent so far, phase), like the visiting orders of schedule.hpp.
#pragma once
#include <cstdint>
#include <optional>

namespace evb {

// What a run does: event building, or one of DAQPIPE's micro-benchmarks.
enum class Benchmark { event_building, one_to_one, shift_scan, many_to_one, gather, gather_cmd, gather_cmd_meta };

class TrafficPattern {
public:
    TrafficPattern(Benchmark kind, std::uint32_t nodes, std::uint32_t shift) : kind_(kind), nodes_(nodes), shift_(shift) {}
    // Target of `sender`'s message number `sent` (0, 1, ...) in shift-scan phase `phase`; none when
    // this sender sends nothing (node 0 of many-to-one) or the scan is over (phase >= N).
    std::optional<std::uint32_t> target(std::uint32_t sender, std::uint64_t sent, std::uint32_t phase) const;
    // True when every exchange starts with the receiver's 64 B command (gather-cmd, gather-cmd-meta).
    bool commanded() const { return kind_ == Benchmark::gather_cmd || kind_ == Benchmark::gather_cmd_meta; }
    // The shift of the flow from `sender` to `receiver`: its phase in a shift scan.
    std::uint32_t shift_between(std::uint32_t sender, std::uint32_t receiver) const { return (receiver + nodes_ - sender) % nodes_; }

private:
    Benchmark kind_;
    std::uint32_t nodes_, shift_;
};

} // namespace evb
