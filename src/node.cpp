#include "node.hpp"

#include <algorithm>

namespace evb {

class Node::UnitContext final : public Context {
public:
    UnitContext(Node& node, Role role, std::uint32_t index) : node_(node), role_(role), index_(index) {}
    Picoseconds now() const override { return node_.now_; }
    void send(UnitAddress to, Message msg) override {
        msg.to = to.role;
        msg.from = role_;
        msg.from_index = index_;
        PendingPost p;
        p.peer = node_.layout_.rank_of(to);
        p.msg = msg;
        node_.post(p);
    }
    void write(UnitAddress to, const MemoryPool& pool, std::uint32_t block, std::uint32_t length, std::uint64_t rkey,
               std::uint64_t remote_offset, std::uint32_t imm, std::uint64_t cookie) override {
        PendingPost p;
        p.is_write = true;
        p.peer = node_.layout_.rank_of(to);
        p.local = &pool.region();
        p.local_offset = pool.offset_of(block);
        p.rkey = rkey;
        p.remote_offset = remote_offset;
        p.length = length;
        p.imm = imm;
        p.cookie = cookie;
        node_.post(p);
    }
    void arm_timer(Picoseconds at, TimerId id) override {
        auto [unit, ctx] = node_.unit_for(role_);
        node_.timers_.push_back({at, unit, ctx, id});
    }
    NodeStats& stats() override { return node_.stats_; }
    spdlog::logger& log() override { return node_.log_; }

private:
    Node& node_;
    Role role_;
    std::uint32_t index_;
};

Node::Node(const UnitSetup& setup, const Layout& layout, Transport& transport, spdlog::logger& log)
    : setup_(setup), layout_(layout), transport_(transport), log_(log), rank_(transport.rank()),
      pending_(std::size_t{setup.config.nodes} * setup.config.credits * 2) {
    const Config& c = setup.config;
    RankUnits units = layout.units_on(rank_);
    stats_.node = units.readout ? *units.readout : units.builder ? *units.builder : layout.nodes();
    std::uint64_t stride = c.fragment_stride();
    const auto fragments = static_cast<std::uint32_t>(c.buffer_fragments());
    if (units.readout) {
        // The RU's readout buffer: m N c fragments (eq. 3.1), loaned one per write.
        ru_pool_ = std::make_unique<MemoryPool>(stride, fragments);
        ru_pool_->register_with(transport);
        readout_ = std::make_unique<ReadoutUnit>(setup, *units.readout, *ru_pool_);
        ru_ctx_ = std::make_unique<UnitContext>(*this, Role::readout, *units.readout);
    }
    if (units.builder) {
        std::uint64_t slot_bytes = stride * c.nodes;
        bu_pool_ = std::make_unique<MemoryPool>(slot_bytes, fragments / c.nodes);
        bu_pool_->register_with(transport);
        builder_ = std::make_unique<BuilderUnit>(setup, *units.builder, *bu_pool_);
        bu_ctx_ = std::make_unique<UnitContext>(*this, Role::builder, *units.builder);
    }
    if (units.manager) {
        manager_ = std::make_unique<EventManager>(setup);
        em_ctx_ = std::make_unique<UnitContext>(*this, Role::manager, 0);
    }
}

Node::~Node() = default;

std::pair<Unit*, Node::UnitContext*> Node::unit_for(Role role) {
    switch (role) {
    case Role::readout: return {readout_.get(), ru_ctx_.get()};
    case Role::builder: return {builder_.get(), bu_ctx_.get()};
    case Role::manager: return {manager_.get(), em_ctx_.get()};
    }
    return {nullptr, nullptr};
}

void Node::start() {
    if (manager_) manager_->on_start(*em_ctx_);
    if (readout_) readout_->on_start(*ru_ctx_);
    if (builder_) builder_->on_start(*bu_ctx_);
}

void Node::dispatch(const Completion& c) {
    switch (c.kind) {
    case Completion::Kind::message: {
        auto [unit, ctx] = unit_for(c.msg.to);
        if (!unit) {
            ++stats_.errors.unexpected;
            log_.error("rank {}: message for a {} it does not host", rank_, role_name(c.msg.to));
            return;
        }
        unit->on_message(*ctx, c.msg);
        return;
    }
    case Completion::Kind::write_done:
        if (readout_) readout_->on_completion(*ru_ctx_, c);
        return;
    case Completion::Kind::write_arrived:
        if (builder_)
            builder_->on_completion(*bu_ctx_, c);
        else
            ++stats_.errors.unexpected;
        return;
    case Completion::Kind::peer_lost:
        fail(std::string("lost connection to rank ") + std::to_string(c.peer) + ": " + (c.error ? c.error : "closed"));
        return;
    }
}

void Node::run_due_timers() {
    for (std::size_t i = 0; i < timers_.size();) {
        if (timers_[i].at <= now_) {
            Timer t = timers_[i];
            timers_.erase(timers_.begin() + static_cast<std::ptrdiff_t>(i));
            t.unit->on_timer(*t.ctx, t.id);
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
    PostStatus s = p.is_write ? transport_.post_write(p.peer, *p.local, p.local_offset, p.rkey, p.remote_offset,
                                                      p.length, p.imm, p.cookie)
                              : transport_.post_send(p.peer, p.msg);
    if (s == PostStatus::error) fail("posting to rank " + std::to_string(p.peer) + " failed: " + transport_.last_error());
    return s != PostStatus::no_resource;
}

void Node::post(const PendingPost& p) {
    // Keep order: once something waits, everything after it waits too.
    if (!pending_.empty() || !try_post(p)) pending_.push(p);
}

std::size_t Node::retry_pending() {
    std::size_t posted = 0;
    while (!pending_.empty() && try_post(pending_.front())) {
        pending_.pop();
        ++posted;
    }
    return posted;
}

bool Node::finished() const {
    return (!manager_ || manager_->finished()) && (!builder_ || builder_->finished()) && pending_.empty();
}

void Node::stop(bool in_flight_is_missing) {
    if (builder_ && in_flight_is_missing) builder_->on_stop(*bu_ctx_);
    // In eq. 3.1's terms: whole fragments, even where only their headers sit in memory.
    const std::uint64_t f = setup_.config.wire_fragment_stride();
    if (ru_pool_) stats_.peak_ru_bytes = std::uint64_t{ru_pool_->peak_in_use()} * f;
    if (bu_pool_) stats_.peak_bu_bytes = std::uint64_t{bu_pool_->peak_in_use()} * f * setup_.config.nodes;
}

void Node::fail(std::string message) {
    // Not logged here: the executor reports the failure once, on one line.
    if (!failure_) failure_ = std::move(message);
}

} // namespace evb
