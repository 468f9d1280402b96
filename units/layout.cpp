#include "units/layout.hpp"

#include <algorithm>

namespace evb {

const char* role_name(Role r) {
    switch (r) {
    case Role::readout: return "RU";
    case Role::builder: return "BU";
    case Role::manager: return "EM";
    }
    return "?";
}

std::string units_text(const RankUnits& u) {
    std::string s;
    auto add = [&](const std::string& part) { s += (s.empty() ? "" : " + ") + part; };
    if (u.readout) add("RU " + std::to_string(*u.readout));
    if (u.builder) add("BU " + std::to_string(*u.builder));
    if (u.manager) add("EM");
    return s;
}

Layout::Layout(std::uint32_t nodes, std::uint32_t ppn, bool with_manager, EmPlacement em, std::uint32_t readout_nodes)
    : nodes_(nodes), ppn_(readout_nodes ? 1 : ppn), with_manager_(with_manager), em_(em), readout_nodes_(readout_nodes) {}

Layout Layout::from_config(const UnitConfig& c) {
    Layout l(c.nodes, c.ppn, c.has_manager(), c.em, c.layout == NodeLayout::split ? c.readout_nodes : 0);
    l.set_endpoint_per_unit(c.threads == UnitThreads::per_unit);
    return l;
}

std::uint32_t Layout::nodes_for_ranks(std::uint32_t ranks, std::uint32_t ppn, bool with_manager, EmPlacement em) {
    std::uint32_t extra = (with_manager && em == EmPlacement::own_rank) ? 1 : 0;
    if (ppn == 0 || ranks <= extra || (ranks - extra) % ppn != 0)
        throw ConfigError(std::to_string(ranks) + " processes do not fit ppn=" + std::to_string(ppn) +
                          (extra ? " with the EM on its own rank" : ""));
    return (ranks - extra) / ppn;
}

std::uint32_t Layout::ranks() const { return nodes_ * ppn_ + ((with_manager_ && em_ == EmPlacement::own_rank) ? 1 : 0); }

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

namespace {
// The units of a rank in endpoint order: RU, BU, EM.
std::vector<UnitAddress> in_endpoint_order(const RankUnits& u) {
    std::vector<UnitAddress> v;
    if (u.readout) v.push_back({Role::readout, *u.readout});
    if (u.builder) v.push_back({Role::builder, *u.builder});
    if (u.manager) v.push_back({Role::manager, 0});
    return v;
}
} // namespace

void Layout::set_endpoint_per_unit(bool on) {
    first_endpoint_.clear();
    if (!on) return;
    const std::uint32_t n = ranks();
    first_endpoint_.reserve(n + 1);
    std::uint32_t next = 0;
    for (std::uint32_t r = 0; r < n; ++r) {
        first_endpoint_.push_back(next);
        next += static_cast<std::uint32_t>(in_endpoint_order(units_on(r)).size());
    }
    first_endpoint_.push_back(next);
}

std::uint32_t Layout::endpoints() const { return first_endpoint_.empty() ? ranks() : first_endpoint_.back(); }

std::uint32_t Layout::first_endpoint_of(std::uint32_t rank) const { return first_endpoint_.empty() ? rank : first_endpoint_[rank]; }

std::uint32_t Layout::endpoints_of(std::uint32_t rank) const {
    return first_endpoint_.empty() ? 1 : first_endpoint_[rank + 1] - first_endpoint_[rank];
}

std::uint32_t Layout::endpoint_of(UnitAddress a) const {
    const std::uint32_t rank = rank_of(a);
    if (first_endpoint_.empty()) return rank;
    const auto order = in_endpoint_order(units_on(rank));
    for (std::uint32_t i = 0; i < order.size(); ++i)
        if (order[i].role == a.role) return first_endpoint_[rank] + i;
    return first_endpoint_[rank];
}

std::uint32_t Layout::rank_of_endpoint(std::uint32_t endpoint) const {
    if (first_endpoint_.empty()) return endpoint;
    auto after = std::upper_bound(first_endpoint_.begin(), first_endpoint_.end() - 1, endpoint);
    return static_cast<std::uint32_t>(after - first_endpoint_.begin()) - 1;
}

RankUnits Layout::units_on_endpoint(std::uint32_t endpoint) const {
    const std::uint32_t rank = rank_of_endpoint(endpoint);
    if (first_endpoint_.empty()) return units_on(rank);
    const UnitAddress a = in_endpoint_order(units_on(rank)).at(endpoint - first_endpoint_[rank]);
    RankUnits u;
    if (a.role == Role::readout) u.readout = a.index;
    if (a.role == Role::builder) u.builder = a.index;
    u.manager = a.role == Role::manager;
    return u;
}

std::uint32_t Layout::node_of(std::uint32_t rank) const {
    RankUnits u = units_on(rank);
    if (u.readout) return *u.readout;
    if (u.builder) return readout_nodes_ + *u.builder;
    return nodes_;
}

} // namespace evb
