#include "node_stats.hpp"

#include <algorithm>

namespace evb {

void ErrorCounts::merge(const ErrorCounts& o) {
    bad_header += o.bad_header;
    bad_payload += o.bad_payload;
    duplicate += o.duplicate;
    missing += o.missing;
    unexpected += o.unexpected;
    credit_overflow += o.credit_overflow;
}

std::string ErrorCounts::describe() const {
    std::string s;
    auto add = [&](std::uint64_t n, const char* what) {
        if (!n) return;
        if (!s.empty()) s += ", ";
        s += std::to_string(n) + " " + what;
    };
    add(bad_header, "bad header");
    add(bad_payload, "bad payload");
    add(duplicate, "duplicate");
    add(missing, "missing");
    add(unexpected, "unexpected");
    add(credit_overflow, "credit overflow");
    return s.empty() ? "none" : s;
}

void PhaseFlow::add(std::uint64_t message_bytes, Picoseconds at, bool steady) {
    bytes += message_bytes;
    ++messages;
    if (!steady) return;
    if (rate_messages++ == 0)
        rate_first = at;
    else
        rate_bytes += message_bytes;
    rate_last = at;
}

void PhaseFlow::merge(const PhaseFlow& o) {
    bytes += o.bytes;
    messages += o.messages;
    if (o.rate_messages == 0) return;
    if (rate_messages == 0) {
        rate_first = o.rate_first;
        rate_last = o.rate_last;
    }
    rate_first = std::min(rate_first, o.rate_first);
    rate_last = std::max(rate_last, o.rate_last);
    rate_bytes += o.rate_bytes;
    rate_messages += o.rate_messages;
}

double PhaseFlow::gbps() const {
    if (rate_messages < 2 || rate_last <= rate_first) return 0;
    return static_cast<double>(rate_bytes) * 8 / (rate_last - rate_first).seconds() / 1e9;
}

void NodeStats::subtract_flow(const NodeStats& before) {
    bytes_out -= before.bytes_out;
    fragments_out -= before.fragments_out;
    writes_out -= before.writes_out;
    writes_in -= before.writes_in;
    bytes_in -= before.bytes_in;
    fragments_in -= before.fragments_in;
    events_built -= before.events_built;
}

void NodeStats::add_loss(const NodeLoss& loss) {
    for (auto& l : losses)
        if (l.rank == loss.rank) {
            if (loss.at < l.at) l = loss;
            return;
        }
    losses.push_back(loss);
    std::sort(losses.begin(), losses.end(), [](const NodeLoss& a, const NodeLoss& b) { return a.rank < b.rank; });
}

void NodeStats::merge(const NodeStats& o) {
    bool had_builds = events_built > 0;
    bytes_out += o.bytes_out;
    fragments_out += o.fragments_out;
    writes_out += o.writes_out;
    writes_in += o.writes_in;
    bytes_in += o.bytes_in;
    fragments_in += o.fragments_in;
    events_assigned += o.events_assigned;
    in_flight += o.in_flight;
    peak_ru_bytes = std::max(peak_ru_bytes, o.peak_ru_bytes);
    peak_bu_bytes = std::max(peak_bu_bytes, o.peak_bu_bytes);
    if (o.events_built) {
        first_build = had_builds ? std::min(first_build, o.first_build) : o.first_build;
        last_build = std::max(last_build, o.last_build);
    }
    events_built += o.events_built;
    errors.merge(o.errors);
    latency.merge(o.latency);
    if (phases.size() < o.phases.size()) phases.resize(o.phases.size());
    for (std::size_t i = 0; i < o.phases.size(); ++i) phases[i].merge(o.phases[i]);
    events_reassigned += o.events_reassigned;
    events_rebuilt += o.events_rebuilt;
    events_incomplete += o.events_incomplete;
    fragments_lost += o.fragments_lost;
    events_built_by_lost += o.events_built_by_lost;
    for (const auto& l : o.losses) add_loss(l);
}

nlohmann::json NodeStats::to_json() const {
    nlohmann::json j = {{"node", node},
            {"bytes_out", bytes_out},
            {"fragments_out", fragments_out},
            {"writes_out", writes_out},
            {"writes_in", writes_in},
            {"bytes_in", bytes_in},
            {"fragments_in", fragments_in},
            {"events_built", events_built},
            {"events_assigned", events_assigned},
            {"in_flight", in_flight},
            {"peak_ru_bytes", peak_ru_bytes},
            {"peak_bu_bytes", peak_bu_bytes},
            {"first_build_ps", first_build.count()},
            {"last_build_ps", last_build.count()},
            {"errors",
             {{"bad_header", errors.bad_header},
              {"bad_payload", errors.bad_payload},
              {"duplicate", errors.duplicate},
              {"missing", errors.missing},
              {"unexpected", errors.unexpected},
              {"credit_overflow", errors.credit_overflow}}},
            {"latency", latency.to_json()}};
    if (events_reassigned || events_rebuilt || events_incomplete || fragments_lost || events_built_by_lost || !losses.empty()) {
        j["failures"] = {{"events_reassigned", events_reassigned}, {"events_rebuilt", events_rebuilt},
                         {"events_incomplete", events_incomplete}, {"fragments_lost", fragments_lost},
                         {"events_built_by_lost", events_built_by_lost}, {"losses", nlohmann::json::array()}};
        for (const auto& l : losses)
            j["failures"]["losses"].push_back({{"rank", l.rank}, {"at_ps", l.at.count()}, {"how", l.how}, {"failed_at_ps", l.failed_at.count()}});
    }
    if (!phases.empty()) {
        auto& list = j["phases"] = nlohmann::json::array();
        for (const auto& p : phases)
            list.push_back({{"bytes", p.bytes}, {"messages", p.messages}, {"rate_messages", p.rate_messages},
                            {"rate_bytes", p.rate_bytes}, {"rate_first_ps", p.rate_first.count()}, {"rate_last_ps", p.rate_last.count()}});
    }
    return j;
}

NodeStats NodeStats::from_json(const nlohmann::json& j) {
    NodeStats s;
    s.node = j.at("node").get<std::uint32_t>();
    s.bytes_out = j.at("bytes_out").get<std::uint64_t>();
    s.fragments_out = j.at("fragments_out").get<std::uint64_t>();
    s.writes_out = j.at("writes_out").get<std::uint64_t>();
    s.writes_in = j.at("writes_in").get<std::uint64_t>();
    s.bytes_in = j.at("bytes_in").get<std::uint64_t>();
    s.fragments_in = j.at("fragments_in").get<std::uint64_t>();
    s.events_built = j.at("events_built").get<std::uint64_t>();
    s.events_assigned = j.at("events_assigned").get<std::uint64_t>();
    s.in_flight = j.at("in_flight").get<std::uint64_t>();
    s.peak_ru_bytes = j.at("peak_ru_bytes").get<std::uint64_t>();
    s.peak_bu_bytes = j.at("peak_bu_bytes").get<std::uint64_t>();
    s.first_build = Picoseconds(j.at("first_build_ps").get<std::int64_t>());
    s.last_build = Picoseconds(j.at("last_build_ps").get<std::int64_t>());
    const auto& e = j.at("errors");
    s.errors.bad_header = e.at("bad_header").get<std::uint64_t>();
    s.errors.bad_payload = e.at("bad_payload").get<std::uint64_t>();
    s.errors.duplicate = e.at("duplicate").get<std::uint64_t>();
    s.errors.missing = e.at("missing").get<std::uint64_t>();
    s.errors.unexpected = e.at("unexpected").get<std::uint64_t>();
    s.errors.credit_overflow = e.at("credit_overflow").get<std::uint64_t>();
    s.latency = LatencyHistogram::from_json(j.at("latency"));
    if (j.contains("failures")) {
        const auto& f = j.at("failures");
        s.events_reassigned = f.at("events_reassigned").get<std::uint64_t>();
        s.events_rebuilt = f.at("events_rebuilt").get<std::uint64_t>();
        s.events_incomplete = f.at("events_incomplete").get<std::uint64_t>();
        s.fragments_lost = f.at("fragments_lost").get<std::uint64_t>();
        s.events_built_by_lost = f.at("events_built_by_lost").get<std::uint64_t>();
        for (const auto& l : f.at("losses"))
            s.losses.push_back({l.at("rank").get<std::uint32_t>(), Picoseconds(l.at("at_ps").get<std::int64_t>()), l.at("how").get<std::string>(),
                                Picoseconds(l.at("failed_at_ps").get<std::int64_t>())});
    }
    if (j.contains("phases"))
        for (const auto& p : j.at("phases")) {
            PhaseFlow f;
            f.bytes = p.at("bytes").get<std::uint64_t>();
            f.messages = p.at("messages").get<std::uint64_t>();
            f.rate_messages = p.at("rate_messages").get<std::uint64_t>();
            f.rate_bytes = p.at("rate_bytes").get<std::uint64_t>();
            f.rate_first = Picoseconds(p.at("rate_first_ps").get<std::int64_t>());
            f.rate_last = Picoseconds(p.at("rate_last_ps").get<std::int64_t>());
            s.phases.push_back(f);
        }
    return s;
}

} // namespace evb
