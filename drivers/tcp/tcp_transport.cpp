#include "drivers/tcp/tcp_transport.hpp"

#include "core/keyed_handshake.hpp"
#include "core/log.hpp"
#include "drivers/transport/hand_out.hpp"
#include "core/socket_util.hpp"
#include "drivers/transport/write_target.hpp"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <linux/pkt_sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace evb {
namespace {
constexpr std::size_t staging_size = 256 * 1024;
constexpr std::size_t command_staging_size = 64 * (sizeof(WriteHeader) + command_bytes);
constexpr std::size_t max_queued_ops = 4096;
const Picoseconds proof_time = Picoseconds::from_seconds(10); // for one connection's proof of the run key
constexpr std::size_t receive_budget = 8u << 20; // bytes per peer per progress call: fairness
constexpr std::uint32_t wake_marker = ~0u; // epoll data of a lane's wake-up eventfd

// The command connection's traffic class: its DSCP (0: unmarked) for the switches, and the
// interactive priority for this host's queueing disciplines (set after the DSCP, which would
// set a priority of its own). Best effort: a host that refuses either still runs.
void mark_as_commands(int fd, std::uint32_t dscp) {
    if (dscp) set_dscp(fd, dscp);
    int priority = TC_PRIO_INTERACTIVE;
    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &priority, sizeof priority);
}
} // namespace

TcpTransport::TcpTransport(std::uint32_t rank, std::uint32_t size, const std::string& listen_host, const RunKey& key,
                           const Options& options)
    : PeerTransport(rank, size, 4096), host_(listen_host), key_(key), peers_(size), read_chunk_(options.read_chunk),
      command_dscp_(options.command_dscp) {
    const std::uint32_t threads = options.threads;
    if (threads == 0) throw std::invalid_argument("--tcp-threads must be at least 1");
    listen_fd_ = listen_on(listen_host, 0, static_cast<int>(size * channels) + 16);
    for (std::uint32_t t = 0; t < std::max(1u, std::min(threads, size)); ++t) {
        auto lane = std::make_unique<Lane>();
        lane->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        if (lane->epoll_fd < 0) throw std::runtime_error("epoll_create1: " + errno_text());
        lanes_.push_back(std::move(lane));
    }
    if (threads > 1) {
        ready_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (ready_fd_ < 0) throw std::runtime_error("eventfd: " + errno_text());
        for (auto& lane : lanes_) {
            lane->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.u32 = wake_marker;
            if (lane->wake_fd < 0 || epoll_ctl(lane->epoll_fd, EPOLL_CTL_ADD, lane->wake_fd, &ev) != 0)
                throw std::runtime_error("tcp: I/O thread wake-up: " + errno_text());
            threads_.push_back(lane.get());
        }
    }
}

TcpTransport::~TcpTransport() {
    stop_ = true;
    for (Lane* lane : threads_) {
        std::uint64_t one = 1;
        if (write(lane->wake_fd, &one, sizeof one) < 0) { // the thread also checks stop_ every pass
        }
        if (lane->thread.joinable()) lane->thread.join();
    }
    for (auto& p : peers_)
        for (auto& c : p.connections)
            if (c.fd >= 0) close(c.fd);
    if (listen_fd_ >= 0) close(listen_fd_);
    for (auto& lane : lanes_) {
        if (lane->epoll_fd >= 0) close(lane->epoll_fd);
        if (lane->wake_fd >= 0) close(lane->wake_fd);
    }
    if (ready_fd_ >= 0) close(ready_fd_);
}

std::string TcpTransport::local_address() { return host_ + ":" + std::to_string(bound_port(listen_fd_)); }

void TcpTransport::connect(const std::vector<std::string>& addresses, Picoseconds timeout) {
    if (addresses.size() != size_) throw std::runtime_error("address table has the wrong size");
    // Lower ranks accept, higher ranks connect: every pair gets exactly one connection per
    // channel. A connection's id in the key's proof names its rank and channel.
    for (std::uint32_t peer = 0; peer < rank_; ++peer) {
        auto [host, port] = split_host_port(addresses[peer]);
        for (std::uint32_t channel = 0; channel < channels; ++channel) {
            int fd = -1;
            try {
                fd = connect_to(host, port, timeout);
            } catch (const std::exception& e) {
                throw std::runtime_error("tcp: rank " + std::to_string(peer) + ": " + e.what());
            }
            if (std::string why = prove_run_key(fd, key_, "tcp", rank_ * channels + channel, std::min(timeout, proof_time)); !why.empty()) {
                close(fd);
                throw std::runtime_error("tcp: rank " + std::to_string(peer) + " at " + addresses[peer] + ": " + why);
            }
            peers_[peer].connections[channel].fd = fd;
        }
    }
    {
        KeyedAcceptor acceptor(listen_fd_, key_, "tcp", proof_time, [this](std::uint32_t id) -> std::string {
            const std::uint32_t who = id / channels;
            if (who <= rank_ || who >= size_)
                return "it proved the run key but claims rank " + std::to_string(who) + ", not one that connects to rank " +
                    std::to_string(rank_);
            if (peers_[who].connections[id % channels].fd >= 0)
                return "it claims rank " + std::to_string(who) + ", which connected already";
            return "";
        });
        const Picoseconds deadline = steady_now() + timeout;
        const std::uint32_t expected = (size_ - 1 - rank_) * channels;
        for (std::uint32_t accepted = 0; accepted < expected; ++accepted) {
            auto a = acceptor.next(deadline);
            if (!a)
                throw std::runtime_error("tcp: only " + std::to_string(accepted / channels) + " of " + std::to_string(size_ - 1 - rank_) +
                                         " higher ranks connected in time");
            peers_[a->id / channels].connections[a->id % channels].fd = a->fd;
        }
    }
    for (std::uint32_t peer = 0; peer < size_; ++peer) {
        if (peer == rank_) continue;
        for (std::uint32_t channel = 0; channel < channels; ++channel) {
            Connection& c = peers_[peer].connections[channel];
            set_nonblocking(c.fd, true);
            set_nodelay(c.fd);
            if (channel == writes) {
                int buf = 4 << 20;
                setsockopt(c.fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
                setsockopt(c.fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
            }
            if (channel == commands) mark_as_commands(c.fd, command_dscp_);
            c.staging.resize(channel == writes ? staging_size : command_staging_size);
            epoll_event ev{};
            ev.events = EPOLLIN | EPOLLRDHUP;
            ev.data.u32 = peer * channels + channel;
            if (epoll_ctl(lane_of(peer).epoll_fd, EPOLL_CTL_ADD, c.fd, &ev) != 0)
                throw std::runtime_error("tcp: rank " + std::to_string(peer) + ": epoll_ctl: " + errno_text());
        }
    }
    close(listen_fd_);
    listen_fd_ = -1;
    for (Lane* lane : threads_) lane->thread = std::thread([this, lane] { run_lane(*lane); });
}

MemoryRegion TcpTransport::register_memory(std::byte* base, std::size_t length) {
    std::lock_guard lock(regions_mutex_);
    regions_.push_back({base, length, regions_.size() + 1});
    return regions_.back();
}

PostStatus TcpTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (check_post(peer) != PostStatus::ok) return PostStatus::error;
    if (peer == rank_) return send_to_self(command);
    SendOp op;
    op.header = {tcp_frame_message, 0, 0, 0, command_bytes};
    op.command = command;
    return enqueue(peer, op);
}

// Queues a frame; its lane's next pass flushes every dirty peer. A threaded lane takes it
// through its inbox and is woken when the inbox was empty.
PostStatus TcpTransport::enqueue(std::uint32_t peer, const SendOp& op) {
    Peer& p = peers_[peer];
    if (p.queued.load(std::memory_order_relaxed) >= max_queued_ops) return PostStatus::no_resource;
    p.queued.fetch_add(1, std::memory_order_relaxed);
    if (!threaded()) {
        queue_in_lane(peer, op);
        return PostStatus::ok;
    }
    Lane& lane = lane_of(peer);
    bool wake = false;
    {
        std::lock_guard lock(lane.mutex);
        wake = lane.inbox.empty();
        lane.inbox.push_back({peer, op});
    }
    std::uint64_t one = 1;
    if (wake && write(lane.wake_fd, &one, sizeof one) < 0) { // cannot fail short of EAGAIN on a full counter: it is awake then
    }
    return PostStatus::ok;
}

// In the peer's lane (its thread, or the caller's with one lane).
void TcpTransport::queue_in_lane(std::uint32_t peer, const SendOp& op) {
    Peer& p = peers_[peer];
    p.connections[op.header.word == tcp_frame_write ? writes : commands].sendq.push(op);
    if (!p.dirty) {
        p.dirty = true;
        lane_of(peer).dirty.push_back(peer);
    }
}

void TcpTransport::complete(const Completion& c) {
    if (threaded() && c.peer != rank_)
        lane_of(c.peer).pending.push_back(c);
    else
        ready_.push(c);
}

PostStatus TcpTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (check_post(peer) != PostStatus::ok) return PostStatus::error;
    if (std::string why = local_source_error(w.local, w.local_offset, w.length); !why.empty()) {
        last_error_ = why;
        return PostStatus::error;
    }
    if (peer == rank_) return write_to_self(regions_, w);
    SendOp op;
    op.header = {tcp_frame_write, w.imm, w.remote_key, w.remote_offset, w.length};
    op.payload = w.local.base + w.local_offset;
    op.cookie = w.cookie;
    return enqueue(peer, op);
}

// Commands first: they are what the peer waits for to ask or send more.
void TcpTransport::flush(std::uint32_t peer) {
    flush(peer, commands);
    flush(peer, writes);
}

// Sends as much of the connection's queue as its socket takes, several frames per sendmsg.
void TcpTransport::flush(std::uint32_t peer, Channel channel) {
    Peer& p = peers_[peer];
    Connection& c = p.connections[channel];
    auto& iov = lane_of(peer).iov;
    while (!lost(peer) && !c.sendq.empty()) {
        // Gather iovecs across queued frames, starting inside the first one.
        std::size_t iovs = 0;
        RingQueue<SendOp>& q = c.sendq;
        // RingQueue has no random access; we send from the front op and peek further by index.
        for (std::size_t i = 0; i < q.size() && iovs + 2 <= iov.size(); ++i) {
            SendOp& op = q.at(i);
            const std::byte* body = op.header.word == tcp_frame_message ? op.command.data() : op.payload;
            std::size_t skip = op.sent;
            if (skip < sizeof(WriteHeader)) {
                iov[iovs++] = {reinterpret_cast<std::byte*>(&op.header) + skip, sizeof(WriteHeader) - skip};
                skip = 0;
            } else {
                skip -= sizeof(WriteHeader);
            }
            if (op.header.length > skip) iov[iovs++] = {const_cast<std::byte*>(body) + skip, op.header.length - skip};
        }
        msghdr mh{};
        mh.msg_iov = iov.data();
        mh.msg_iovlen = iovs;
        ssize_t n = sendmsg(c.fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (!c.want_out) {
                    c.want_out = true;
                    update_events(peer, channel);
                }
                return;
            }
            lose_in_lane(peer, errno_text());
            return;
        }
        auto left = static_cast<std::size_t>(n);
        while (left && !q.empty()) {
            SendOp& op = q.front();
            std::size_t total = sizeof(WriteHeader) + op.header.length;
            std::size_t take = std::min(left, total - op.sent);
            op.sent += take;
            left -= take;
            if (op.sent == total) {
                if (op.header.word == tcp_frame_write) {
                    Completion done;
                    done.kind = Completion::Kind::write_done;
                    done.peer = peer;
                    done.cookie = op.cookie;
                    done.length = op.header.length;
                    complete(done);
                }
                q.pop();
                p.queued.fetch_sub(1, std::memory_order_relaxed);
            }
        }
    }
    if (c.want_out && c.sendq.empty()) {
        c.want_out = false;
        update_events(peer, channel);
    }
}

void TcpTransport::update_events(std::uint32_t peer, Channel channel) {
    const Connection& c = peers_[peer].connections[channel];
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP | (c.want_out ? EPOLLOUT : 0u);
    ev.data.u32 = peer * channels + channel;
    if (epoll_ctl(lane_of(peer).epoll_fd, EPOLL_CTL_MOD, c.fd, &ev) != 0) lose_in_lane(peer, "epoll_ctl: " + errno_text());
}

class TcpTransport::Landing final : public TcpFrameReader::Sink {
public:
    Landing(TcpTransport& t, std::uint32_t peer) : t_(t), peer_(peer) {}
    WriteTarget target(std::uint64_t key, std::uint64_t offset, std::uint64_t length) override {
        std::lock_guard lock(t_.regions_mutex_);
        return write_target(t_.regions_, key, offset, length);
    }
    void arrived(const Completion& c) override {
        Completion mine = c;
        mine.peer = peer_;
        t_.complete(mine);
    }

private:
    TcpTransport& t_;
    std::uint32_t peer_;
};

void TcpTransport::fence(std::uint32_t peer) {
    if (peer < size_ && peer != rank_) peers_[peer].fenced = true;
}

void TcpTransport::receive(std::uint32_t peer, Channel channel) {
    Peer& p = peers_[peer];
    Connection& c = p.connections[channel];
    if (p.fenced) return lose_in_lane(peer, "it was declared lost: nothing more from it is taken");
    Landing landing(*this, peer);
    std::size_t budget = receive_budget;
    while (!lost(peer) && budget) {
        const std::span<std::byte> body = c.reader.body_room(landing); // an open write body: straight into its region
        std::byte* into = body.empty() ? c.staging.data() : body.data();
        ssize_t n = recv(c.fd, into, read_size(body.empty() ? c.staging.size() : body.size()), MSG_DONTWAIT);
        if (n > 0) {
            const auto got = static_cast<std::size_t>(n);
            budget -= std::min(budget, got);
            std::string refused = body.empty() ? c.reader.take({c.staging.data(), got}, landing) : c.reader.landed(got, landing);
            if (!refused.empty()) return lose_in_lane(peer, "it sent " + refused);
            if (read_chunk_) return; // one read per peer per poll: peers interleave
            continue;
        }
        if (n == 0) return lose_in_lane(peer, "peer closed the connection");
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return lose_in_lane(peer, errno_text());
    }
}

std::size_t TcpTransport::read_size(std::size_t room) const { return read_chunk_ ? std::min(room, read_chunk_) : room; }

void TcpTransport::lose_in_lane(std::uint32_t peer, const std::string& why) {
    if (!losses_[peer].mark(peer, why)) return;
    for (const Connection& c : peers_[peer].connections) // best effort: the sockets are not read again either way
        epoll_ctl(lane_of(peer).epoll_fd, EPOLL_CTL_DEL, c.fd, nullptr);
    complete(losses_[peer].completion(peer));
}

void TcpTransport::progress(Lane& lane, int timeout_ms) {
    if (threaded()) {
        {
            std::lock_guard lock(lane.mutex);
            lane.draining.swap(lane.inbox);
        }
        for (const auto& p : lane.draining) queue_in_lane(p.peer, p.op);
        lane.draining.clear();
    }
    for (std::uint32_t peer : lane.dirty) {
        peers_[peer].dirty = false;
        flush(peer);
    }
    lane.dirty.clear();
    epoll_event events[64];
    int n = epoll_wait(lane.epoll_fd, events, 64, timeout_ms);
    for (int i = 0; i < n; ++i) {
        const std::uint32_t id = events[i].data.u32;
        if (id == wake_marker) {
            std::uint64_t count = 0;
            if (read(lane.wake_fd, &count, sizeof count) < 0) { // EAGAIN: another pass drained it
            }
            continue;
        }
        const std::uint32_t peer = id / channels;
        const auto channel = static_cast<Channel>(id % channels);
        if (events[i].events & EPOLLOUT) flush(peer, channel);
        if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) receive(peer, channel);
    }
}

// An I/O thread: passes over its peers until the transport closes, publishing each pass's
// completions in one batch.
void TcpTransport::run_lane(Lane& lane) {
    while (!stop_.load(std::memory_order_relaxed)) {
        bool idle = false;
        {
            std::lock_guard lock(lane.mutex);
            idle = lane.inbox.empty();
        }
        progress(lane, idle && lane.dirty.empty() ? 10 : 0);
        if (lane.pending.empty()) continue;
        {
            std::lock_guard lock(lane.mutex);
            lane.outbox.insert(lane.outbox.end(), lane.pending.begin(), lane.pending.end());
        }
        lane.pending.clear();
        std::uint64_t one = 1;
        if (write(ready_fd_, &one, sizeof one) < 0) { // EAGAIN only on a full counter: the caller has plenty to read
        }
    }
}

void TcpTransport::collect_outboxes() {
    for (Lane* lane : threads_) {
        {
            std::lock_guard lock(lane->mutex);
            collected_.swap(lane->outbox);
        }
        for (const auto& c : collected_) ready_.push(c);
        collected_.clear();
    }
}

std::size_t TcpTransport::poll(std::span<Completion> out) {
    if (threaded())
        collect_outboxes();
    else if (ready_.size() < out.size())
        progress(*lanes_[0], 0);
    return hand_out(ready_, out, 0);
}

Transport::WaitPlan TcpTransport::prepare_wait(std::vector<int>& fds) {
    if (!ready_.empty()) return WaitPlan::poll_again;
    if (!threaded()) {
        if (!lanes_[0]->dirty.empty()) return WaitPlan::poll_again; // writes to flush: the next poll does it
        fds.push_back(lanes_[0]->epoll_fd); // readable while a socket has an event
        return WaitPlan::sleep;
    }
    std::uint64_t count = 0;
    if (read(ready_fd_, &count, sizeof count) < 0) { // EAGAIN: nothing to clear
    }
    // Cleared first, then looked at: a lane that publishes after this look also writes the fd.
    for (Lane* lane : threads_) {
        std::lock_guard lock(lane->mutex);
        if (!lane->outbox.empty()) return WaitPlan::poll_again;
    }
    fds.push_back(ready_fd_);
    return WaitPlan::sleep;
}

} // namespace evb
