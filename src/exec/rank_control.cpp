#include "exec/rank_control.hpp"

#include "core/interrupt.hpp"
#include "core/printable_text.hpp"
#include "exec/run_deadline.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace evb {

bool RankEndpoints::finished() const {
    if (!node_.finished()) return false;
    for (const auto& t : threads_)
        if (!t->finished()) return false;
    return true;
}

std::optional<std::string> RankEndpoints::failure() const {
    if (node_.failure()) return node_.failure();
    for (const auto& t : threads_)
        if (auto f = t->failure()) return f;
    return std::nullopt;
}

ProgressCounts RankEndpoints::progress() const {
    ProgressCounts p = ProgressCounts::of(node_.stats());
    for (const auto& t : threads_) p += t->progress();
    return p;
}

void RankEndpoints::lose_rank(std::uint32_t rank, const std::string& how, Picoseconds failed_at, LossNews news) {
    for (std::uint32_t e = layout_.first_endpoint_of(rank); e < layout_.first_endpoint_of(rank) + layout_.endpoints_of(rank); ++e)
        node_.lose_rank(e, how, failed_at, news);
}

void RankEndpoints::end_now() {
    node_.end_now();
    for (auto& t : threads_) t->end_now();
}

RankControl::RankControl(const Config& config, const World& world, Bootstrap& boot, RunObserver& observer, RankEndpoints& rank)
    : config_(config), world_(world), boot_(boot), observer_(observer), rank_(rank), root_(world.rank == 0), board_(world.size),
      done_(world.size, false), lost_(world.size, false), heartbeat_(config.heartbeat), deadline_(run_deadline(config)),
      record_period_(progress_record_period(config.progress_interval)), next_record_(record_period_), next_line_(config.progress_interval) {
    if (root_ && config.until == Until::steady) steady_.emplace(config, rank.layout(), record_period_);
    heartbeat_.start(world.size, Picoseconds(0));
    for (std::uint32_t r = 0; r < world.size; ++r)
        if (root_ ? r == 0 : r != 0) heartbeat_.forget(r); // a rank other than 0 hears only rank 0
}

void RankControl::tick(Picoseconds now) {
    if (auto f = rank_.failure()) {
        failure_ = f;
        return;
    }
    say_done_and_beat(now);
    for (auto& in : boot_.poll()) handle(in, now);
    find_the_silent(now);
    if (root_ && done_count_ == world_.size) {
        boot_.broadcast(ControlType::finish);
        finish_ = true;
    }
    report_progress(now);
    if (now >= deadline_)
        failure_ = fmt::format("run did not finish within {:g} s (duration + grace); {} fragments in flight here", deadline_.seconds(),
                               rank_.progress().in_flight);
}

void RankControl::say_done_and_beat(Picoseconds now) {
    if (rank_.finished() && !sent_done_) {
        sent_done_ = true;
        if (root_)
            mark_done(0);
        else
            boot_.send_to_root(ControlType::done, {{"losses", losses_heard_}});
    }
    if (heartbeat_.beat_due(now)) {
        if (root_)
            boot_.broadcast(ControlType::beat);
        else
            boot_.send_to_root(ControlType::beat);
    }
}

void RankControl::handle(const Bootstrap::Incoming& in, Picoseconds now) {
    const nlohmann::json& body = in.message.body;
    // Fenced: nothing a rank declared lost says counts any more, not even its abort (it was
    // told, in the lost_rank about itself, and ends by itself).
    if (root_ && in.from != 0 && lost_[in.from]) return;
    heartbeat_.heard(in.from, now);
    switch (in.message.type) {
    case ControlType::link_lost:
        if (root_ && in.from != 0)
            rank_lost(in.from, "its control connection closed: " + body.at("error").get<std::string>());
        else
            failure_ = fmt::format("lost contact with rank 0: {}", body.at("error").get<std::string>());
        break;
    case ControlType::lost_rank: {
        const auto r = body.at("rank").get<std::uint32_t>();
        if (root_ && in.from != 0) { // losses are rank 0's to declare: the sender is the one that broke the protocol
            rank_lost(in.from, fmt::format("it sent a lost_rank message about rank {}, which only rank 0 sends", r));
            break;
        }
        if (r >= world_.size) {
            failure_ = fmt::format("{} declared rank {} lost, but the run has {} ranks", boot_.peer_name(in.from), r, world_.size);
            break;
        }
        if (r == world_.rank) { // woken after the survivors went on without it (stopped, hung, cut off)
            fenced_ = true;
            failure_ = fmt::format("rank 0 declared this rank lost ({}) and the run went on without it: what it did since "
                                   "does not count; ending",
                                   body.at("how").get<std::string>());
            break;
        }
        rank_.lose_rank(r, body.at("how").get<std::string>(), Picoseconds(-1), LossNews::told);
        ++losses_heard_;
        sent_done_ = false; // said again once finished with what the loss brought
        break;
    }
    case ControlType::abort: // named by the link it came on, not by what it says of itself
        failure_ = fmt::format("{} ended the run: {}", boot_.peer_name(in.from), body.at("error").get<std::string>());
        break;
    case ControlType::done:
        if (body.at("losses").get<std::uint32_t>() == lost_count_) mark_done(in.from);
        break;
    case ControlType::progress: {
        board_[in.from] = ProgressCounts::from_json(body);
        if (!steady_) break;
        if (auto refused = steady_->take(in.from, body.at("period").get<std::uint64_t>(), board_[in.from], now))
            rank_lost(in.from, *refused);
        break;
    }
    case ControlType::finish: finish_ = true; break;
    case ControlType::end_now: {
        const auto sig = body.at("signal").get<std::uint32_t>();
        if (sig == 0 || sig > 64) {
            failure_ = fmt::format("{} sent an end_now for signal {}, which is no signal", boot_.peer_name(in.from), sig);
            break;
        }
        end_now(static_cast<int>(sig), now, root_); // rank 0 passes it on to every rank
        break;
    }
    case ControlType::steady:
        if (root_)
            rank_lost(in.from, "it sent a steady message, which only rank 0 sends");
        else
            wind_down(now);
        break;
    case ControlType::beat: break;
    default:
        if (root_ && in.from != 0)
            rank_lost(in.from, fmt::format("it sent a {} message during the run", to_string(in.message.type)));
        else
            failure_ = fmt::format("rank 0 sent a {} message during the run", to_string(in.message.type));
    }
}

void RankControl::find_the_silent(Picoseconds now) {
    heartbeat_.find_silent(now, [&](std::uint32_t r, Picoseconds last_heard) {
        if (root_)
            rank_lost(r, heartbeat_.silence(), last_heard);
        else if (!failure_)
            failure_ = "lost contact with rank 0: it " + heartbeat_.silence();
    });
}

void RankControl::report_progress(Picoseconds now) {
    if (now < next_record_) return;
    // A loop late by periods sends one record, of the period it is in.
    const std::uint64_t period = static_cast<std::uint64_t>(now.count() / record_period_.count());
    next_record_ = Picoseconds(static_cast<std::int64_t>(period + 1) * record_period_.count());
    const ProgressCounts mine = rank_.progress();
    if (!root_) {
        nlohmann::json record = mine.to_json();
        record["period"] = period;
        boot_.send_to_root(ControlType::progress, record);
        return;
    }
    board_[0] = mine;
    if (steady_) {
        if (auto broken = steady_->take(0, period, mine, now)) failure_ = "rank 0's own progress record: " + *broken;
        if (steady_->reached() && !winding_down_) {
            wind_down(now);
            boot_.broadcast(ControlType::steady);
        }
    }
    if (now < next_line_) return;
    while (next_line_ <= now) next_line_ += config_.progress_interval;
    ProgressCounts sum;
    for (const auto& r : board_) sum += r;
    observer_.progress(now, sum);
}

void RankControl::end_now(int signal, Picoseconds now, bool tell) {
    if (interrupted_) return;
    interrupted_ = signal;
    note_interrupt(signal);
    wind_down(now);
    if (!tell) return;
    if (root_)
        boot_.broadcast(ControlType::end_now, {{"signal", signal}});
    else
        boot_.send_to_root(ControlType::end_now, {{"signal", signal}});
}

void RankControl::wind_down(Picoseconds now) {
    if (winding_down_) return;
    winding_down_ = true;
    rank_.end_now();
    deadline_ = std::min(deadline_, now + config_.grace);
}

void RankControl::rank_lost(std::uint32_t r, const std::string& how, Picoseconds failed_at) {
    if (lost_[r]) return;
    heartbeat_.forget(r);
    if (!config_.survives_failures()) {
        failure_ = Node::lost_connection_line(r, how);
        return;
    }
    lost_[r] = true;
    ++lost_count_;
    for (std::uint32_t i = 0; i < world_.size; ++i)
        if (done_[i] && !lost_[i]) {
            done_[i] = false;
            --done_count_;
        }
    mark_done(r);
    sent_done_ = false;
    rank_.lose_rank(r, how, failed_at);
    boot_.broadcast(ControlType::lost_rank, {{"rank", r}, {"how", cut_text(how, max_text_field)}});
}

void RankControl::mark_done(std::uint32_t r) {
    if (!done_[r]) {
        done_[r] = true;
        ++done_count_;
    }
}

} // namespace evb
