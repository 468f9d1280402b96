#include "exec/node.hpp"

#include <algorithm>
#include <cstring>

namespace evb {
namespace {

// A command names its sender, and units index their tables by it: it must be a unit the rank it
// came from hosts (a peer's bytes do not get to say whose they are).
bool sent_by(const RankUnits& u, const Message& m) {
    switch (m.from) {
    case Role::readout: return u.readout && *u.readout == m.from_index;
    case Role::builder: return u.builder && *u.builder == m.from_index;
    case Role::manager: return u.manager && m.from_index == 0;
    }
    return false; // not a role
}

} // namespace

class Node::UnitContext final : public Context {
public:
    UnitContext(Node& node, std::size_t unit, UnitAddress self) : node_(node), unit_(unit), self_(self) {}
    Picoseconds now() const override { return node_.now_; }
    void send(UnitAddress to, Message msg) override {
        msg.to = to.role;
        msg.from = self_.role;
        msg.from_index = self_.index;
        PendingPost p;
        p.peer = node_.layout_.endpoint_of(to);
        static_assert(sizeof(Message) == command_bytes && std::is_trivially_copyable_v<Message>);
        std::memcpy(p.command.data(), &msg, sizeof msg);
        node_.post(p);
    }
    void write(UnitAddress to, const PoolWrite& w) override {
        PendingPost p;
        p.is_write = true;
        p.peer = node_.layout_.endpoint_of(to);
        p.write = {.local = node_.region_of(w.pool),
                   .local_offset = w.pool.offset_of(w.block) + w.block_offset,
                   .remote_key = w.rkey,
                   .remote_offset = w.remote_offset,
                   .length = w.length,
                   .imm = w.imm,
                   .cookie = node_.track_write(unit_, p.peer, w.cookie)};
        node_.post(p);
    }
    void arm_timer(Picoseconds at, TimerId id) override { node_.timers_.push_back({at, unit_, id}); }
    NodeStats& stats() override { return node_.stats_; }
    spdlog::logger& log() override { return node_.log_; }

private:
    Node& node_;
    std::size_t unit_;
    UnitAddress self_;
};

Node::Node(UnitsOfRank units, const Layout& layout, Transport& transport, spdlog::logger& log)
    : layout_(layout), transport_(transport), log_(log), rank_(transport.rank()), hosted_(std::move(units)) {
    stats_.node = hosted_.node;
    window_open_ = hosted_.count_from <= Picoseconds(0);
    for (std::size_t i = 0; i < hosted_.units.size(); ++i) {
        Unit& unit = *hosted_.units[i].unit;
        contexts_.push_back(std::make_unique<UnitContext>(*this, i, hosted_.units[i].address));
        // Registration is the executor's step: once per pool, before any unit starts.
        for (MemoryPool* pool : unit.pools()) {
            MemoryRegion region = transport.register_memory(pool->data(), pool->size());
            pool->set_remote_key(region.key);
            if (unit.takes_write_heads()) transport.deliver_write_heads(region);
            regions_.emplace_back(pool, region);
        }
        if (unit.receives_writes()) {
            if (write_target_ != SIZE_MAX) throw std::logic_error("two units on one rank receive writes");
            write_target_ = i;
        }
    }
}

Node::~Node() = default;

const MemoryRegion& Node::region_of(const MemoryPool& pool) const {
    for (const auto& [p, region] : regions_)
        if (p == &pool) return region;
    throw std::logic_error("a unit wrote from a pool it did not declare");
}

std::uint64_t Node::track_write(std::size_t unit, std::uint32_t peer, std::uint64_t cookie) {
    std::uint64_t id;
    if (free_writes_.empty()) {
        id = writes_.size();
        writes_.push_back({});
    } else {
        id = free_writes_.back();
        free_writes_.pop_back();
    }
    writes_[id] = {unit, cookie, peer, OutstandingWrite::State::in_flight};
    return id;
}

void Node::retire_write(std::uint64_t id) {
    if (writes_[id].state != OutstandingWrite::State::in_flight) return;
    writes_[id].state = OutstandingWrite::State::retired;
    dropped_.push(id);
}

// Not from within lose_rank: that may run inside a unit's own post.
std::size_t Node::deliver_dropped() {
    std::size_t n = 0;
    while (!dropped_.empty()) {
        const std::uint64_t id = dropped_.front();
        dropped_.pop();
        OutstandingWrite& w = writes_[id];
        if (w.state == OutstandingWrite::State::retired) {
            w.state = OutstandingWrite::State::told;
        } else if (w.state == OutstandingWrite::State::retired_done) {
            w.state = OutstandingWrite::State::free;
            free_writes_.push_back(id);
        } else {
            continue; // not retired (any more): nothing to tell
        }
        WriteCompletion done;
        done.kind = WriteCompletion::Kind::write_done;
        done.cookie = w.cookie;
        done.dropped = true;
        hosted_.units[w.unit].unit->on_completion(*contexts_[w.unit], done);
        ++n;
    }
    return n;
}

// What a peer_lost completion says went wrong, without the peer_loss_prefix a driver puts first:
// the lines that report a loss name the rank themselves.
std::string Node::loss_reason(const Completion& c) {
    if (!c.error) return "connection closed";
    const std::string error = c.error, prefix = peer_loss_prefix(c.peer);
    return error.rfind(prefix, 0) == 0 ? error.substr(prefix.size()) : error;
}

std::string Node::lost_connection_line(std::uint32_t rank, const std::string& how) {
    return "lost connection to rank " + std::to_string(rank) + ": " + how;
}

bool Node::is_lost(std::uint32_t rank) const { return std::ranges::find(lost_, rank) != lost_.end(); }

// Backlog i is empty or dropped: its queue goes back to the spares.
void Node::remove_backlog(std::size_t i) {
    spare_queues_.push_back(std::move(backlogs_[i].posts));
    backlogs_[i] = std::move(backlogs_.back());
    backlogs_.pop_back();
}

void Node::lose_rank(std::uint32_t rank, const std::string& how, Picoseconds failed_at, LossNews news) {
    if (rank == rank_ || is_lost(rank) || failure_) return;
    if (!survive_) return fail(lost_connection_line(rank, how));
    const RankUnits gone = layout_.units_on_endpoint(rank);
    if (gone.manager)
        return fail("lost the event manager (rank " + std::to_string(rank) + ": " + how + "); the run cannot go on without it");
    lost_.push_back(rank);
    transport_.fence(rank);
    if (news == LossNews::seen) stats_.add_loss({rank, now_, how, failed_at});
    log_.info("rank {}: rank {} is lost ({}); going on without it", rank_, rank, how);
    for (std::size_t i = 0; i < backlogs_.size(); ++i) {
        if (backlogs_[i].peer != rank) continue;
        for (RingQueue<PendingPost>& queue = backlogs_[i].posts; !queue.empty(); queue.pop())
            if (queue.front().is_write) retire_write(queue.front().write.cookie);
        remove_backlog(i);
        break;
    }
    for (std::uint64_t id = 0; id < writes_.size(); ++id)
        if (writes_[id].peer == rank) retire_write(id);
    for (std::size_t i = 0; i < hosted_.units.size(); ++i) {
        Unit& unit = *hosted_.units[i].unit;
        if (gone.readout) unit.on_unit_lost(*contexts_[i], {Role::readout, *gone.readout});
        if (gone.builder) unit.on_unit_lost(*contexts_[i], {Role::builder, *gone.builder});
    }
}

Unit* Node::unit_for(Role role, std::size_t* index) {
    for (std::size_t i = 0; i < hosted_.units.size(); ++i)
        if (hosted_.units[i].address.role == role) {
            *index = i;
            return hosted_.units[i].unit.get();
        }
    return nullptr;
}

void Node::start() {
    for (std::size_t i = 0; i < hosted_.units.size(); ++i) hosted_.units[i].unit->on_start(*contexts_[i]);
}

void Node::end_now() {
    if (ended_now_ || halted_) return;
    ended_now_ = true;
    for (std::size_t i = 0; i < hosted_.units.size(); ++i) hosted_.units[i].unit->on_end_now(*contexts_[i]);
}

void Node::dispatch(const Completion& c) {
    // What a lost peer still sends is dropped: the unit that would take it was told of the loss.
    if (!lost_.empty() && c.kind != Completion::Kind::write_done && c.kind != Completion::Kind::peer_lost && is_lost(c.peer)) return;
    switch (c.kind) {
    case Completion::Kind::message: {
        Message msg;
        std::memcpy(&msg, c.command.data(), sizeof msg);
        if (!sent_by(layout_.units_on_endpoint(c.peer), msg)) {
            ++stats_.errors.unexpected;
            log_.error("rank {}: a command from rank {} names {} {} as its sender, which that rank does not host", rank_, c.peer,
                       role_name(msg.from), msg.from_index);
            return;
        }
        std::size_t i = 0;
        Unit* unit = unit_for(msg.to, &i);
        if (!unit) {
            ++stats_.errors.unexpected;
            log_.error("rank {}: message for a {} it does not host", rank_, role_name(msg.to));
            return;
        }
        unit->on_message(*contexts_[i], msg);
        return;
    }
    case Completion::Kind::write_done: {
        if (c.cookie >= writes_.size()) {
            ++stats_.errors.unexpected;
            return;
        }
        OutstandingWrite w = writes_[c.cookie];
        if (w.state == OutstandingWrite::State::free) {
            ++stats_.errors.unexpected;
            return;
        }
        if (w.state == OutstandingWrite::State::retired) { // its unit hears it dropped in deliver_dropped, then the id is free
            writes_[c.cookie].state = OutstandingWrite::State::retired_done;
            return;
        }
        if (w.state == OutstandingWrite::State::retired_done) { // a second completion for one write
            ++stats_.errors.unexpected;
            return;
        }
        writes_[c.cookie].state = OutstandingWrite::State::free;
        free_writes_.push_back(c.cookie);
        if (w.state == OutstandingWrite::State::told) return; // already finished as dropped
        WriteCompletion done;
        done.kind = WriteCompletion::Kind::write_done;
        done.cookie = w.cookie;
        hosted_.units[w.unit].unit->on_completion(*contexts_[w.unit], done);
        return;
    }
    case Completion::Kind::write_arrived: {
        if (write_target_ == SIZE_MAX) {
            ++stats_.errors.unexpected;
            return;
        }
        WriteCompletion arrived;
        arrived.kind = WriteCompletion::Kind::write_arrived;
        arrived.imm = c.imm;
        arrived.offset = c.offset;
        arrived.length = c.length;
        if (c.head_bytes) {
            arrived.head = c.command.data();
            arrived.head_bytes = c.head_bytes;
        }
        hosted_.units[write_target_].unit->on_completion(*contexts_[write_target_], arrived);
        return;
    }
    case Completion::Kind::peer_lost: lose_rank(c.peer, loss_reason(c)); return;
    }
}

void Node::run_due_timers() {
    for (std::size_t i = 0; i < timers_.size();) {
        if (timers_[i].at <= now_) {
            Timer t = timers_[i];
            timers_.erase(timers_.begin() + static_cast<std::ptrdiff_t>(i));
            hosted_.units[t.unit].unit->on_timer(*contexts_[t.unit], t.id);
        } else {
            ++i;
        }
    }
}

Picoseconds Node::next_timer() const {
    Picoseconds next = Picoseconds::max();
    for (const auto& t : timers_) next = std::min(next, t.at);
    return next;
}

bool Node::try_post(const PendingPost& p) {
    if (!lost_.empty() && is_lost(p.peer)) { // posted before the unit heard of the loss
        if (p.is_write) retire_write(p.write.cookie);
        return true;
    }
    PostStatus s = p.is_write ? transport_.post_write(p.peer, p.write) : transport_.post_send(p.peer, p.command);
    if (s == PostStatus::error) {
        const std::string how = "posting failed: " + transport_.last_error();
        // A post can fail on a dead peer before the transport's notice of the loss is handled (in
        // the same poll batch): the run ends with the same line either way.
        if (!survive_) {
            if (p.peer == rank_)
                fail("posting to itself failed: " + transport_.last_error());
            else
                lose_rank(p.peer, how);
        } else {
            // Declared after the retry loop: losing a rank rewrites the backlogs it walks.
            if (p.is_write) retire_write(p.write.cookie);
            failed_peers_.emplace_back(p.peer, how);
        }
        return true;
    }
    return s != PostStatus::no_resource;
}

void Node::post(const PendingPost& p) {
    // Keep order per peer: once something waits for a peer, what follows to it waits too.
    for (auto& b : backlogs_)
        if (b.peer == p.peer) {
            b.posts.push(p);
            return;
        }
    if (try_post(p)) return;
    Backlog b{p.peer, RingQueue<PendingPost>(0)};
    if (!spare_queues_.empty()) {
        b.posts = std::move(spare_queues_.back());
        spare_queues_.pop_back();
    }
    b.posts.push(p);
    backlogs_.push_back(std::move(b));
}

std::size_t Node::retry_pending() {
    std::size_t posted = 0;
    for (std::size_t i = 0; i < backlogs_.size();) {
        RingQueue<PendingPost>& queue = backlogs_[i].posts;
        while (!queue.empty() && try_post(queue.front())) {
            queue.pop();
            ++posted;
        }
        if (queue.empty()) {
            remove_backlog(i);
        } else {
            ++i;
        }
    }
    for (std::size_t i = 0; i < failed_peers_.size(); ++i) {
        auto [peer, how] = failed_peers_[i]; // a copy: the units' posts may add to the list
        lose_rank(peer, how);
    }
    failed_peers_.clear();
    return posted + deliver_dropped();
}

bool Node::finished() const {
    if (halted_) return true;
    for (const auto& h : hosted_.units)
        if (!h.unit->finished()) return false;
    return backlogs_.empty();
}

void Node::open_window() {
    window_open_ = true;
    stats_.begin_window(hosted_.count_from);
}

void Node::stop(bool in_flight_is_missing) {
    // A run that ended within its warm-up (--events, Ctrl-C) keeps its counts from the start
    // (counted_from 0) rather than reporting nothing.
    for (std::size_t i = 0; i < hosted_.units.size(); ++i) hosted_.units[i].unit->on_stop(*contexts_[i], in_flight_is_missing);
}

void Node::fail(std::string message) {
    // Not logged here: the executor reports the failure once, on one line.
    if (!failure_) failure_ = std::move(message);
}

} // namespace evb
