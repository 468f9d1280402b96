// Roles and layout: which rank hosts which unit. Folded layout: node i has RU i and BU i, in one
// process (ppn 1) or two (ppn 2). Split layout: node i < R has RU i, node R + j has BU j. The EM
// shares rank 0 or has its own last rank.
#pragma once
#include "config.hpp"
#include "message.hpp"

#include <cstdint>
#include <optional>

namespace evb {

struct RankUnits {
    std::optional<std::uint32_t> readout;   // RU index hosted here
    std::optional<std::uint32_t> builder;   // BU index hosted here
    bool manager = false;
};

class Layout {
public:
    // readout_nodes > 0: split layout, nodes [0, R) read out and [R, nodes) build (ppn 1).
    Layout(std::uint32_t nodes, std::uint32_t ppn, bool with_manager, EmPlacement em, std::uint32_t readout_nodes = 0);
    static Layout from_config(const Config& c);

    // Nodes that `ranks` processes hold for this ppn and EM placement; throws ConfigError if none.
    static std::uint32_t nodes_for_ranks(std::uint32_t ranks, std::uint32_t ppn, bool with_manager, EmPlacement em);

    std::uint32_t nodes() const { return nodes_; }
    std::uint32_t ranks() const;
    std::uint32_t rank_of(UnitAddress a) const;
    RankUnits units_on(std::uint32_t rank) const;
    // The statistics row (and simulated host) of a rank: its RU's or BU's node, N for an EM alone.
    std::uint32_t node_of(std::uint32_t rank) const;
    bool has_manager() const { return with_manager_; }

private:
    std::uint32_t nodes_;
    std::uint32_t ppn_;
    bool with_manager_;
    EmPlacement em_;
    std::uint32_t readout_nodes_;   // 0: folded
};

} // namespace evb
