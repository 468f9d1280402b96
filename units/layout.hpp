// Roles and layout: which rank hosts which unit. Folded layout: node i has RU i and BU i, in one
// process (ppn 1) or two (ppn 2). Split layout: node i < R has RU i, node R + j has BU j. The EM
// shares rank 0 or has its own last rank.
//
// Endpoints: what a transport calls a rank. With one reactor per process (--threads 1) a rank is
// one endpoint; with --threads per-unit every unit of a rank has its own endpoint (and thread),
// numbered rank by rank in the order RU, BU, EM. Executors address peers by endpoint.
#pragma once
#include "units/config.hpp"
#include "units/message.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace evb {

struct RankUnits {
    std::optional<std::uint32_t> readout; // RU index hosted here
    std::optional<std::uint32_t> builder; // BU index hosted here
    bool manager = false;
};

// "RU 0 + BU 0", "EM": the units a rank or endpoint hosts, for messages.
std::string units_text(const RankUnits& u);

class Layout {
public:
    // readout_nodes > 0: split layout, nodes [0, R) read out and [R, nodes) build (ppn 1).
    Layout(std::uint32_t nodes, std::uint32_t ppn, bool with_manager, EmPlacement em, std::uint32_t readout_nodes = 0);
    static Layout from_config(const UnitConfig& c);

    // Nodes that `ranks` processes hold for this ppn and EM placement; throws ConfigError if none.
    static std::uint32_t nodes_for_ranks(std::uint32_t ranks, std::uint32_t ppn, bool with_manager, EmPlacement em);

    std::uint32_t nodes() const { return nodes_; }
    std::uint32_t ranks() const;
    std::uint32_t rank_of(UnitAddress a) const;
    RankUnits units_on(std::uint32_t rank) const;
    // The statistics row (and simulated host) of a rank: its RU's or BU's node, N for an EM alone.
    std::uint32_t node_of(std::uint32_t rank) const;
    bool has_manager() const { return with_manager_; }

    // --threads per-unit: one endpoint per unit instead of one per rank.
    void set_endpoint_per_unit(bool on);
    bool endpoint_per_unit() const { return !first_endpoint_.empty(); }
    std::uint32_t endpoints() const;
    std::uint32_t endpoint_of(UnitAddress a) const;
    std::uint32_t first_endpoint_of(std::uint32_t rank) const;
    std::uint32_t endpoints_of(std::uint32_t rank) const; // how many rank hosts
    std::uint32_t rank_of_endpoint(std::uint32_t endpoint) const;
    RankUnits units_on_endpoint(std::uint32_t endpoint) const;

private:
    std::uint32_t nodes_;
    std::uint32_t ppn_;
    bool with_manager_;
    EmPlacement em_;
    std::uint32_t readout_nodes_; // 0: folded
    std::vector<std::uint32_t> first_endpoint_; // per rank, and the total last; empty: an endpoint per rank
};

} // namespace evb
