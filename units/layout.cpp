#include "layout.hpp"

namespace evb {

const char* role_name(Role r) {
    switch (r) {
    case Role::readout: return "RU";
    case Role::builder: return "BU";
    case Role::manager: return "EM";
    }
    return "?";
}

Layout::Layout(std::uint32_t nodes, std::uint32_t ppn, bool with_manager, EmPlacement em, std::uint32_t readout_nodes)
    : nodes_(nodes), ppn_(readout_nodes ? 1 : ppn), with_manager_(with_manager), em_(em), readout_nodes_(readout_nodes) {}

Layout Layout::from_config(const Config& c) {
    return Layout(c.nodes, c.ppn, c.has_manager(), c.em, c.layout == NodeLayout::split ? c.readout_nodes : 0);
}

std::uint32_t Layout::nodes_for_ranks(std::uint32_t ranks, std::uint32_t ppn, bool with_manager, EmPlacement em) {
    std::uint32_t extra = (with_manager && em == EmPlacement::own_rank) ? 1 : 0;
    if (ppn == 0 || ranks <= extra || (ranks - extra) % ppn != 0)
        throw ConfigError(std::to_string(ranks) + " processes do not fit ppn=" + std::to_string(ppn) +
                          (extra ? " with the EM on its own rank" : ""));
    return (ranks - extra) / ppn;
}

std::uint32_t Layout::ranks() const {
    return nodes_ * ppn_ + ((with_manager_ && em_ == EmPlacement::own_rank) ? 1 : 0);
}

std::uint32_t Layout::rank_of(UnitAddress a) const {
    switch (a.role) {
    case Role::readout: return a.index * ppn_;
    case Role::builder: return readout_nodes_ ? readout_nodes_ + a.index : a.index * ppn_ + (ppn_ - 1);
    case Role::manager: return em_ == EmPlacement::rank0 ? 0 : nodes_ * ppn_;
    }
    return 0;
}

RankUnits Layout::units_on(std::uint32_t rank) const {
    RankUnits u;
    if (readout_nodes_ && rank < nodes_) {
        if (rank < readout_nodes_)
            u.readout = rank;
        else
            u.builder = rank - readout_nodes_;
    } else if (!readout_nodes_ && rank < nodes_ * ppn_) {
        std::uint32_t node = rank / ppn_;
        bool first = rank % ppn_ == 0;
        if (first) u.readout = node;
        if (ppn_ == 1 || !first) u.builder = node;
    }
    u.manager = with_manager_ && rank_of({Role::manager, 0}) == rank;
    return u;
}

std::uint32_t Layout::node_of(std::uint32_t rank) const {
    RankUnits u = units_on(rank);
    if (u.readout) return *u.readout;
    if (u.builder) return readout_nodes_ + *u.builder;
    return nodes_;
}

} // namespace evb
