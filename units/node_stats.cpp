#include "units/node_stats.hpp"

#include "core/json_fields.hpp"

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

void NodeStats::begin_window(Picoseconds at) {
    counted_from = at;
    network_bytes_in_before_window += network_bytes_in();
    bytes_in_before_window += bytes_in;
    network_bytes_out_before_window += network_bytes_out();
    events_before_window += events_built;
    bytes_out = fragments_out = writes_out = 0;
    bytes_in = fragments_in = writes_in = 0;
    bytes_out_local = bytes_in_local = 0;
    events_built = 0;
    first_build = last_build = Picoseconds(0);
    latency = LatencyHistogram{};
}

void NodeStats::add_loss(const NodeLoss& loss) {
    for (auto& l : losses)
        if (l.rank == loss.rank) {
            // The earliest sighting, and the earliest failure any sighting knew of.
            const Picoseconds failed = l.failed_at < Picoseconds(0) ? loss.failed_at
                : loss.failed_at < Picoseconds(0)                   ? l.failed_at
                                                                    : std::min(l.failed_at, loss.failed_at);
            if (loss.at < l.at) l = loss;
            l.failed_at = failed;
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
    bytes_out_local += o.bytes_out_local;
    bytes_in_local += o.bytes_in_local;
    fragments_in += o.fragments_in;
    network_bytes_in_before_window += o.network_bytes_in_before_window;
    bytes_in_before_window += o.bytes_in_before_window;
    network_bytes_out_before_window += o.network_bytes_out_before_window;
    events_before_window += o.events_before_window;
    events_assigned += o.events_assigned;
    in_flight += o.in_flight;
    peak_ru_bytes = std::max(peak_ru_bytes, o.peak_ru_bytes);
    peak_bu_bytes = std::max(peak_bu_bytes, o.peak_bu_bytes);
    counted_from = std::max(counted_from, o.counted_from);
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
                        {"bytes_out_local", bytes_out_local},
                        {"bytes_in_local", bytes_in_local},
                        {"fragments_in", fragments_in},
                        {"events_built", events_built},
                        {"events_before_window", events_before_window},
                        {"events_assigned", events_assigned},
                        {"in_flight", in_flight},
                        {"peak_ru_bytes", peak_ru_bytes},
                        {"peak_bu_bytes", peak_bu_bytes},
                        {"first_build_ps", first_build.count()},
                        {"last_build_ps", last_build.count()},
                        {"counted_from_ps", counted_from.count()},
                        {"errors",
                         {{"bad_header", errors.bad_header},
                          {"bad_payload", errors.bad_payload},
                          {"duplicate", errors.duplicate},
                          {"missing", errors.missing},
                          {"unexpected", errors.unexpected},
                          {"credit_overflow", errors.credit_overflow}}},
                        {"latency", latency.to_json()}};
    if (events_reassigned || events_rebuilt || events_incomplete || fragments_lost || events_built_by_lost || !losses.empty()) {
        j["failures"] = {{"events_reassigned", events_reassigned},       {"events_rebuilt", events_rebuilt},
                         {"events_incomplete", events_incomplete},       {"fragments_lost", fragments_lost},
                         {"events_built_by_lost", events_built_by_lost}, {"losses", nlohmann::json::array()}};
        for (const auto& l : losses)
            j["failures"]["losses"].push_back(
                {{"rank", l.rank}, {"at_ps", l.at.count()}, {"how", l.how}, {"failed_at_ps", l.failed_at.count()}});
    }
    if (!phases.empty()) {
        auto& list = j["phases"] = nlohmann::json::array();
        for (const auto& p : phases)
            list.push_back({{"bytes", p.bytes},
                            {"messages", p.messages},
                            {"rate_messages", p.rate_messages},
                            {"rate_bytes", p.rate_bytes},
                            {"rate_first_ps", p.rate_first.count()},
                            {"rate_last_ps", p.rate_last.count()}});
    }
    return j;
}

NodeStats NodeStats::from_json(const nlohmann::json& j) {
    NodeStats s;
    s.node = whole_field_as<std::uint32_t>(j, "node");
    s.bytes_out = whole_field(j, "bytes_out");
    s.events_before_window = whole_field(j, "events_before_window");
    s.fragments_out = whole_field(j, "fragments_out");
    s.writes_out = whole_field(j, "writes_out");
    s.writes_in = whole_field(j, "writes_in");
    s.bytes_in = whole_field(j, "bytes_in");
    s.bytes_out_local = whole_field(j, "bytes_out_local");
    s.bytes_in_local = whole_field(j, "bytes_in_local");
    if (s.bytes_out_local > s.bytes_out) throw std::invalid_argument("the field 'bytes_out_local' exceeds 'bytes_out'");
    if (s.bytes_in_local > s.bytes_in) throw std::invalid_argument("the field 'bytes_in_local' exceeds 'bytes_in'");
    s.fragments_in = whole_field(j, "fragments_in");
    s.events_built = whole_field(j, "events_built");
    s.events_assigned = whole_field(j, "events_assigned");
    s.in_flight = whole_field(j, "in_flight");
    s.peak_ru_bytes = whole_field(j, "peak_ru_bytes");
    s.peak_bu_bytes = whole_field(j, "peak_bu_bytes");
    s.first_build = Picoseconds(integer_field(j, "first_build_ps"));
    s.last_build = Picoseconds(integer_field(j, "last_build_ps"));
    s.counted_from = Picoseconds(integer_field(j, "counted_from_ps"));
    if (s.counted_from < Picoseconds(0)) throw std::invalid_argument("the field 'counted_from_ps' is negative");
    const auto& e = json_field(j, "errors");
    s.errors.bad_header = whole_field(e, "bad_header");
    s.errors.bad_payload = whole_field(e, "bad_payload");
    s.errors.duplicate = whole_field(e, "duplicate");
    s.errors.missing = whole_field(e, "missing");
    s.errors.unexpected = whole_field(e, "unexpected");
    s.errors.credit_overflow = whole_field(e, "credit_overflow");
    s.latency = LatencyHistogram::from_json(json_field(j, "latency"));
    if (j.contains("failures")) {
        const auto& f = json_field(j, "failures");
        s.events_reassigned = whole_field(f, "events_reassigned");
        s.events_rebuilt = whole_field(f, "events_rebuilt");
        s.events_incomplete = whole_field(f, "events_incomplete");
        s.fragments_lost = whole_field(f, "fragments_lost");
        s.events_built_by_lost = whole_field(f, "events_built_by_lost");
        for (const auto& l : json_field(f, "losses"))
            s.losses.push_back({whole_field_as<std::uint32_t>(l, "rank"), Picoseconds(integer_field(l, "at_ps")), text_field(l, "how"),
                                Picoseconds(integer_field(l, "failed_at_ps"))});
    }
    if (j.contains("phases"))
        for (const auto& p : json_field(j, "phases")) {
            PhaseFlow f;
            f.bytes = whole_field(p, "bytes");
            f.messages = whole_field(p, "messages");
            f.rate_messages = whole_field(p, "rate_messages");
            f.rate_bytes = whole_field(p, "rate_bytes");
            f.rate_first = Picoseconds(integer_field(p, "rate_first_ps"));
            f.rate_last = Picoseconds(integer_field(p, "rate_last_ps"));
            s.phases.push_back(f);
        }
    return s;
}

} // namespace evb
