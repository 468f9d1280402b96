#include "drivers/sim/sim_network.hpp"

#include "drivers/transport/write_target.hpp"

#include <algorithm>
#include <cstring>

namespace evb {

SimNetwork::SimNetwork(netsim::FabricSim& fabric, std::vector<std::uint32_t> host_of_rank, std::size_t copy_bytes)
    : fabric_(fabric), host_of_rank_(std::move(host_of_rank)), copy_bytes_(copy_bytes), regions_(host_of_rank_.size()),
      heads_only_(host_of_rank_.size()), is_dirty_(host_of_rank_.size(), false), halted_(host_of_rank_.size(), false),
      loopback_free_(fabric.hosts(), Picoseconds(0)), loopback_ps_per_byte_(8e3 / fabric.fastest_host_link_gbps()) {
    // Completions wait here only until the executor drains the rank, right after the callback.
    for (std::size_t r = 0; r < host_of_rank_.size(); ++r) inbound_.emplace_back(256);
}

MemoryRegion SimNetwork::register_memory(std::uint32_t rank, std::byte* base, std::size_t length) {
    auto& regions = regions_.at(rank);
    regions.push_back({base, length, regions.size() + 1});
    heads_only_.at(rank).push_back(false);
    return regions.back();
}

std::uint32_t SimNetwork::store(const Transfer& t) {
    std::uint32_t i = free_;
    if (i == UINT32_MAX) {
        i = static_cast<std::uint32_t>(transfers_.size());
        transfers_.push_back(t);
    } else {
        free_ = transfers_[i].next_free;
        transfers_[i] = t;
    }
    return i;
}

std::string SimNetwork::send(std::uint32_t from, std::uint32_t to, const CommandBytes& command) {
    if (to >= ranks()) return no_such_rank(to, ranks());
    Transfer t;
    t.from = from;
    t.to = to;
    t.command = command;
    start(t, command_bytes);
    return {};
}

std::string SimNetwork::write(std::uint32_t from, std::uint32_t to, const WriteRequest& w) {
    if (to >= ranks()) return no_such_rank(to, ranks());
    const auto& target = regions_[to];
    const std::size_t copy = std::min(w.length, copy_bytes_);
    // Only the bytes the simulator copies (the first copy_bytes_ of a write) must fit.
    if (const WriteTarget dst = write_target(target, w.remote_key, w.remote_offset, copy); !dst.at)
        return "rank " + std::to_string(to) + " refused " + dst.why;
    if (std::string why = local_source_error(w.local, w.local_offset, copy); !why.empty()) return why;
    Transfer t;
    t.is_write = true;
    t.from = from;
    t.to = to;
    t.source = w.local.base + w.local_offset;
    t.length = w.length;
    t.rkey = w.remote_key;
    t.remote_offset = w.remote_offset;
    t.cookie = w.cookie;
    t.imm = w.imm;
    start(t, w.length);
    return {};
}

void SimNetwork::start(const Transfer& t, std::uint64_t bytes) {
    const std::uint32_t host = host_of(t.from);
    if (host != host_of(t.to)) {
        fabric_.post(host, host_of(t.to), bytes, store(t) | (t.is_write ? write_tag : 0));
        return;
    }
    local_bytes_ += bytes;
    Picoseconds& free_at = loopback_free_[host];
    free_at = std::max(free_at, fabric_.now()) + Picoseconds(static_cast<std::int64_t>(static_cast<double>(bytes) * loopback_ps_per_byte_));
    fabric_.set_timer(free_at, host, loopback_tag | store(t));
}

void SimNetwork::release(std::uint32_t i) {
    transfers_[i].next_free = free_;
    free_ = i;
}

void SimNetwork::delivered(const netsim::SimMessage& m) {
    auto i = static_cast<std::uint32_t>(m.tag);
    land(transfers_[i]);
    if (!(m.tag & write_tag)) release(i); // a write is kept for its ACK
}

bool SimNetwork::acknowledged(const netsim::SimMessage& m) {
    if (!(m.tag & write_tag)) return false;
    auto i = static_cast<std::uint32_t>(m.tag);
    write_done(transfers_[i]);
    release(i);
    return true;
}

// Within a host nothing crosses the network: a write is done when it has landed.
void SimNetwork::loopback_done(std::uint64_t tag) {
    auto i = static_cast<std::uint32_t>(tag & ~loopback_tag);
    land(transfers_[i]);
    if (transfers_[i].is_write) write_done(transfers_[i]);
    release(i);
}

void SimNetwork::land(const Transfer& t) {
    if (halted_[t.to]) return;
    if (!t.is_write) {
        Completion c;
        c.peer = t.from;
        c.kind = Completion::Kind::message;
        c.command = t.command;
        push(t.to, c);
        return;
    }
    Completion c = write_arrived(t.from, t.imm, t.remote_offset, t.length);
    const MemoryRegion& target = regions_[t.to][t.rkey - 1];
    const std::size_t copy = std::min(t.length, copy_bytes_);
    if (heads_only_[t.to][t.rkey - 1]) {
        c.head_bytes = static_cast<std::uint8_t>(std::min(copy, c.command.size()));
        std::memcpy(c.command.data(), t.source, c.head_bytes);
    } else {
        std::memcpy(target.base + t.remote_offset, t.source, copy);
    }
    push(t.to, c);
}

// RC: the writer learns of completion once the data is at the target and its ACK is back; a
// target that failed acknowledges nothing.
void SimNetwork::write_done(const Transfer& t) {
    if (halted_[t.to]) return;
    Completion done;
    done.kind = Completion::Kind::write_done;
    done.peer = t.to;
    done.cookie = t.cookie;
    push(t.from, done);
}

void SimNetwork::push(std::uint32_t rank, const Completion& c) {
    inbound_[rank].push(c);
    if (!is_dirty_[rank]) {
        is_dirty_[rank] = true;
        dirty_.push_back(rank);
    }
}

void SimNetwork::take_dirty(std::vector<std::uint32_t>& out) {
    out.clear();
    out.swap(dirty_);
    for (auto r : out) is_dirty_[r] = false;
}

} // namespace evb
