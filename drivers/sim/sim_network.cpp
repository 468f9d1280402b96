#include "drivers/sim/sim_network.hpp"

#include "drivers/transport/write_target.hpp"

#include <algorithm>
#include <cstring>

namespace evb {

SimNetwork::SimNetwork(netsim::FabricSim& fabric, std::vector<std::uint32_t> host_of_rank, std::size_t copy_bytes)
    : fabric_(fabric), host_of_rank_(std::move(host_of_rank)), copy_bytes_(copy_bytes), regions_(host_of_rank_.size()),
      heads_only_(host_of_rank_.size()), parts_(fabric.parts()), is_dirty_(host_of_rank_.size(), 0), halted_(host_of_rank_.size(), 0),
      loopback_free_(fabric.hosts(), Picoseconds(0)), loopback_ps_per_byte_(8e3 / fabric.fastest_host_link_gbps()) {
    // Completions wait here only until the executor drains the rank, right after the callback.
    for (std::size_t r = 0; r < host_of_rank_.size(); ++r) inbound_.emplace_back(256);
    for (const std::uint32_t host : host_of_rank_) part_of_rank_.push_back(fabric.part_of_host(host));
}

std::uint64_t SimNetwork::bytes_through_memory() const {
    std::uint64_t n = 0;
    for (const Part& p : parts_) n += p.local_bytes;
    return n;
}

MemoryRegion SimNetwork::register_memory(std::uint32_t rank, std::byte* base, std::size_t length) {
    auto& regions = regions_.at(rank);
    regions.push_back({base, length, regions.size() + 1});
    heads_only_.at(rank).push_back(false);
    return regions.back();
}

std::uint64_t SimNetwork::store(const Transfer& t) {
    const std::uint32_t part = part_of_rank_[t.from];
    Part& p = parts_[part];
    std::uint32_t i = p.free;
    if (i == UINT32_MAX) {
        if (p.count == Part::chunk * Part::max_chunks) throw std::runtime_error("the simulated network holds 2^28 transfers at once");
        if (p.count % Part::chunk == 0) p.chunks.push_back(std::make_unique<Transfer[]>(Part::chunk));
        i = static_cast<std::uint32_t>(p.count++);
    } else {
        p.free = p[i].next_free;
    }
    p[i] = t;
    return std::uint64_t{i} | std::uint64_t{part} << part_shift;
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
    parts_[part_of_rank_[t.from]].local_bytes += bytes;
    Picoseconds& free_at = loopback_free_[host];
    free_at = std::max(free_at, fabric_.now()) + Picoseconds(static_cast<std::int64_t>(static_cast<double>(bytes) * loopback_ps_per_byte_));
    fabric_.set_timer(free_at, host, loopback_tag | store(t));
}

void SimNetwork::release(std::uint64_t tag) {
    Part& p = part_of_tag(tag);
    const auto i = static_cast<std::uint32_t>(tag);
    p[i].next_free = p.free;
    p.free = i;
}

// At the receiver: the transfer stays with its sender's part until the ACK.
void SimNetwork::delivered(const netsim::SimMessage& m) { land(transfer(m.tag & ~write_tag)); }

// At the sender: a write is done; any transfer is freed.
bool SimNetwork::acknowledged(const netsim::SimMessage& m) {
    const std::uint64_t tag = m.tag & ~write_tag;
    const bool write = m.tag & write_tag;
    if (write) write_done(transfer(tag));
    release(tag);
    return write;
}

// Within a host nothing crosses the network: a write is done when it has landed.
void SimNetwork::loopback_done(std::uint64_t tag) {
    const std::uint64_t t = tag & ~loopback_tag;
    const Transfer& done = transfer(t);
    land(done);
    if (done.is_write) write_done(done);
    release(t);
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
        is_dirty_[rank] = 1;
        parts_[part_of_rank_[rank]].dirty.push_back(rank);
    }
}

void SimNetwork::take_dirty(std::uint32_t part, std::vector<std::uint32_t>& out) {
    out.clear();
    out.swap(parts_[part].dirty);
    for (auto r : out) is_dirty_[r] = 0;
}

} // namespace evb
