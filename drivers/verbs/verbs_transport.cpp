#include "drivers/verbs/verbs_transport.hpp"

#include "drivers/transport/hand_out.hpp"
#include "core/keyed_handshake.hpp"
#include "core/log.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace evb {
namespace {

// wr_id: kind in the top 2 bits; receives carry peer and ring slot, sends the peer and how many
// work requests their completion retires, writes (data and notice) the peer and their slot.
constexpr std::uint64_t kind_write_data = 0, kind_recv = 1, kind_send = 2, kind_write = 3; // kind_write: a write's notice
std::uint64_t wr_id(std::uint64_t kind, std::uint32_t peer, std::uint32_t index) { return kind << 62 | std::uint64_t{peer} << 32 | index; }
std::uint64_t kind_of(std::uint64_t id) { return id >> 62; }
std::uint32_t peer_of(std::uint64_t id) { return static_cast<std::uint32_t>(id >> 32) & 0x3FFFFFFF; }
std::uint32_t index_of(std::uint64_t id) { return static_cast<std::uint32_t>(id); }

std::string errno_text() { return std::strerror(errno); }

// "10.0.0.5:40122": where a connection request came from.
std::string requester_address(rdma_cm_id* id) {
    const sockaddr* a = rdma_get_peer_addr(id);
    if (!a || a->sa_family != AF_INET) return "an unknown address";
    const auto* in = reinterpret_cast<const sockaddr_in*>(a);
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    return std::string(text) + ":" + std::to_string(ntohs(in->sin_port));
}

// A region's key: page offset of its base << 48 | index + 1 << 32 | rkey. A region is registered
// with its I/O virtual address at the base's page offset (the kernel refuses an iova whose page
// offset differs from the address's), so byte `offset` of it is at iova page offset + offset.
// The rkey sits in the low half: a key that is off by a little names no region the adapter
// knows, and the adapter refuses the write.
std::uint64_t region_key(std::uint32_t rkey, std::uint64_t page_offset, std::size_t index1) {
    return page_offset << 48 | std::uint64_t{index1} << 32 | rkey;
}
std::size_t key_index(std::uint64_t key) { return static_cast<std::size_t>((key >> 32) & 0xFFFF); } // index + 1
std::uint64_t key_page_offset(std::uint64_t key) { return key >> 48; }
std::uint32_t key_rkey(std::uint64_t key) { return static_cast<std::uint32_t>(key); }

// The first IPv4 address in the port's GID table (RoCE v2 GIDs are ::ffff:a.b.c.d).
std::string ipv4_of_device(ibv_context* ctx, std::uint32_t port) {
    ibv_port_attr attr{};
    if (ibv_query_port(ctx, static_cast<std::uint8_t>(port), &attr)) return {};
    for (int i = 0; i < attr.gid_tbl_len; ++i) {
        ibv_gid gid{};
        if (ibv_query_gid(ctx, static_cast<std::uint8_t>(port), i, &gid)) continue;
        const auto* r = gid.raw;
        bool mapped = std::all_of(r, r + 10, [](std::uint8_t b) { return b == 0; }) && r[10] == 0xff && r[11] == 0xff;
        if (mapped) return std::to_string(r[12]) + "." + std::to_string(r[13]) + "." + std::to_string(r[14]) + "." + std::to_string(r[15]);
    }
    return {};
}

sockaddr_in parse_address(const std::string& text) {
    auto colon = text.rfind(':');
    sockaddr_in a{};
    a.sin_family = AF_INET;
    if (colon == std::string::npos || inet_pton(AF_INET, text.substr(0, colon).c_str(), &a.sin_addr) != 1)
        throw std::runtime_error("bad verbs address '" + text + "'");
    a.sin_port = htons(static_cast<std::uint16_t>(std::stoul(text.substr(colon + 1))));
    return a;
}

} // namespace

std::optional<std::string> VerbsTransport::device_problem(const std::string& device) {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    std::optional<std::string> problem;
    if (!list || count == 0) {
        problem = "no RDMA device: load rdma_rxe or use another transport";
    } else if (!device.empty()) {
        std::string names;
        bool found = false;
        for (int i = 0; i < count; ++i) {
            names += (names.empty() ? "" : ", ") + std::string(ibv_get_device_name(list[i]));
            found = found || device == ibv_get_device_name(list[i]);
        }
        if (!found) problem = "no RDMA device named '" + device + "' (have: " + names + ")";
    }
    if (list) ibv_free_device_list(list);
    return problem;
}

VerbsTransport::VerbsTransport(std::uint32_t rank, std::uint32_t size, VerbsOptions options, const RunKey& key)
    : PeerTransport(rank, size, 256), options_(std::move(options)), key_(key), peers_(size) {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (!list || count == 0) {
        if (list) ibv_free_device_list(list);
        throw std::runtime_error("no RDMA device: load rdma_rxe or use another transport");
    }
    ibv_device* chosen = nullptr;
    std::string names;
    for (int i = 0; i < count; ++i) {
        names += (names.empty() ? "" : ", ") + std::string(ibv_get_device_name(list[i]));
        if (options_.device.empty() ? !chosen : options_.device == ibv_get_device_name(list[i])) chosen = list[i];
    }
    if (!chosen) {
        ibv_free_device_list(list);
        throw std::runtime_error("no RDMA device named '" + options_.device + "' (have: " + names + ")");
    }
    std::string ip = options_.listen_host;
    if (ip.empty() || ip == "127.0.0.1" || ip == "localhost") {
        ibv_context* probe = ibv_open_device(chosen);
        ip = probe ? ipv4_of_device(probe, options_.port) : "";
        if (probe) ibv_close_device(probe);
        if (ip.empty()) {
            std::string name = ibv_get_device_name(chosen);
            ibv_free_device_list(list);
            throw std::runtime_error("RDMA device " + name + " port " + std::to_string(options_.port) +
                                     " has no IPv4 address: give --listen-host with the address of its interface");
        }
    }
    ibv_free_device_list(list);

    channel_ = rdma_create_event_channel();
    if (!channel_ || rdma_create_id(channel_, &listener_, nullptr, RDMA_PS_TCP))
        throw std::runtime_error("rdma_cm: cannot create an id: " + errno_text());
    sockaddr_in local = parse_address(ip + ":0");
    if (rdma_bind_addr(listener_, reinterpret_cast<sockaddr*>(&local)) || rdma_listen(listener_, static_cast<int>(size_)))
        throw std::runtime_error("rdma_cm: cannot listen on " + ip + ": " + errno_text());
    context_ = listener_->verbs;
    if (!context_) throw std::runtime_error("rdma_cm: address " + ip + " belongs to no RDMA device");
    if (!options_.device.empty() && options_.device != ibv_get_device_name(context_->device))
        throw std::runtime_error("address " + ip + " belongs to RDMA device " + ibv_get_device_name(context_->device) + ", not " +
                                 options_.device);
    address_ = ip + ":" + std::to_string(ntohs(rdma_get_src_port(listener_)));
    pd_ = ibv_alloc_pd(context_);
    completion_channel_ = ibv_create_comp_channel(context_); // an idle rank sleeps on it (--poll)
    if (!completion_channel_) throw std::runtime_error("ibv_create_comp_channel failed: " + errno_text());
    fcntl(completion_channel_->fd, F_SETFL, fcntl(completion_channel_->fd, F_GETFL) | O_NONBLOCK);
    cq_ = ibv_create_cq(context_, static_cast<int>(size_ * (send_depth + recv_depth) + 16), nullptr, completion_channel_, 0);
    if (!pd_ || !cq_) throw std::runtime_error("ibv_alloc_pd / ibv_create_cq failed: " + errno_text());
}

VerbsTransport::~VerbsTransport() {
    for (std::uint32_t peer = 0; peer < peers_.size(); ++peer) {
        Peer& p = peers_[peer];
        if (p.id) {
            if (p.connected && !lost(peer)) rdma_disconnect(p.id);
            if (p.qp) rdma_destroy_qp(p.id);
            rdma_destroy_id(p.id);
        }
        if (p.recv_mr) ibv_dereg_mr(p.recv_mr);
    }
    for (auto* mr : mrs_) ibv_dereg_mr(mr);
    if (cq_) {
        acknowledge_cq_events(); // ibv_destroy_cq waits for every event to be acknowledged
        ibv_destroy_cq(cq_);
    }
    if (completion_channel_) ibv_destroy_comp_channel(completion_channel_);
    if (pd_) ibv_dealloc_pd(pd_);
    if (listener_) rdma_destroy_id(listener_);
    if (channel_) rdma_destroy_event_channel(channel_);
}

std::string VerbsTransport::local_address() { return address_; }

void VerbsTransport::setup_qp(std::uint32_t peer, rdma_cm_id* id) {
    Peer& p = peers_[peer];
    p.id = id;
    id->context = reinterpret_cast<void*>(static_cast<std::uintptr_t>(peer));
    ibv_qp_init_attr attr{};
    attr.send_cq = cq_;
    attr.recv_cq = cq_;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = send_depth;
    attr.cap.max_recv_wr = recv_depth;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    attr.cap.max_inline_data = inline_size;
    if (rdma_create_qp(id, pd_, &attr)) throw std::runtime_error("rdma_create_qp for rank " + std::to_string(peer) + ": " + errno_text());
    p.qp = id->qp;
    p.recv_buffers.resize(recv_depth);
    // An int, not the enum: verbs.h's ibv_reg_mr macro ANDs it with an enum of another type,
    // which C++20 deprecates (clang: -Wdeprecated-enum-enum-conversion).
    p.recv_mr = ibv_reg_mr(pd_, p.recv_buffers.data(), p.recv_buffers.size() * command_bytes, static_cast<int>(IBV_ACCESS_LOCAL_WRITE));
    if (!p.recv_mr) throw std::runtime_error("ibv_reg_mr of receive buffers: " + errno_text());
    std::vector<std::uint32_t> all(recv_depth);
    for (std::uint32_t s = 0; s < recv_depth; ++s) all[s] = s;
    post_recvs(peer, all); // before the connection is up
}

void VerbsTransport::post_recvs(std::uint32_t peer, const std::vector<std::uint32_t>& slots) {
    if (slots.empty()) return;
    Peer& p = peers_[peer];
    std::vector<ibv_sge> sges(slots.size());
    std::vector<ibv_recv_wr> wrs(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i) {
        sges[i] = {reinterpret_cast<std::uintptr_t>(&p.recv_buffers[slots[i]]), command_bytes, p.recv_mr->lkey};
        wrs[i].wr_id = wr_id(kind_recv, peer, slots[i]);
        wrs[i].sg_list = &sges[i];
        wrs[i].num_sge = 1;
        wrs[i].next = i + 1 < slots.size() ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad = nullptr;
    if (ibv_post_recv(p.qp, wrs.data(), &bad)) lose(peer, "ibv_post_recv failed: " + errno_text());
}

bool VerbsTransport::take_signal(Peer& p) {
    if (++p.unsignalled < signal_every) return false;
    p.unsignalled = 0;
    return true;
}

void VerbsTransport::connect(const std::vector<std::string>& addresses, Picoseconds timeout) {
    if (addresses.size() != size_) throw std::runtime_error("verbs: expected " + std::to_string(size_) + " addresses");
    // The lower rank connects, the higher one accepts; the connect carries the caller's rank.
    for (std::uint32_t peer = rank_ + 1; peer < size_; ++peer) {
        rdma_cm_id* id = nullptr;
        if (rdma_create_id(channel_, &id, reinterpret_cast<void*>(static_cast<std::uintptr_t>(peer)), RDMA_PS_TCP))
            throw std::runtime_error("rdma_create_id: " + errno_text());
        peers_[peer].id = id;
        sockaddr_in dst = parse_address(addresses[peer]);
        if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&dst), 5000))
            throw std::runtime_error("rdma_resolve_addr to rank " + std::to_string(peer) + " (" + addresses[peer] + "): " + errno_text());
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout.count() / 1000);
    while (connected_ + 1 < size_) {
        pollfd pfd{channel_->fd, POLLIN, 0};
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        if (left <= 0 || ::poll(&pfd, 1, static_cast<int>(left)) <= 0) {
            std::string missing;
            for (std::uint32_t p = 0; p < size_; ++p)
                if (p != rank_ && !peers_[p].connected) (missing += missing.empty() ? "" : ", ") += std::to_string(p);
            throw std::runtime_error("verbs: timed out connecting to rank(s) " + missing);
        }
        rdma_cm_event* event = nullptr;
        if (rdma_get_cm_event(channel_, &event)) throw std::runtime_error("rdma_get_cm_event: " + errno_text());
        handle_cm_event(event);
    }
    int flags = fcntl(channel_->fd, F_GETFL);
    fcntl(channel_->fd, F_SETFL, flags | O_NONBLOCK); // poll() then only looks for disconnects
}

void VerbsTransport::handle_cm_event(rdma_cm_event* event) {
    const rdma_cm_event_type type = event->event;
    rdma_cm_id* id = event->id;
    auto peer = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(id->context));
    // The private data lives as long as the event: copied before it is acknowledged.
    std::array<std::uint8_t, one_way_proof_bytes> request{};
    std::size_t request_bytes = 0;
    if (type == RDMA_CM_EVENT_CONNECT_REQUEST && event->param.conn.private_data) {
        request_bytes = std::min<std::size_t>(event->param.conn.private_data_len, request.size());
        std::memcpy(request.data(), event->param.conn.private_data, request_bytes);
    }
    rdma_ack_cm_event(event);
    auto fail = [&](const std::string& what) {
        throw std::runtime_error("verbs: connecting rank " + std::to_string(rank_) + " and rank " + std::to_string(peer) + ": " + what);
    };
    switch (type) {
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(id, 5000)) fail("rdma_resolve_route: " + errno_text());
        break;
    case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        setup_qp(peer, id);
        const auto proof = one_way_proof(key_, "verbs", rank_, peer);
        rdma_conn_param param{};
        param.private_data = proof.data();
        param.private_data_len = static_cast<std::uint8_t>(proof.size());
        param.responder_resources = 1;
        param.initiator_depth = 1;
        param.retry_count = 7;
        param.rnr_retry_count = 7;
        if (rdma_connect(id, &param)) fail("rdma_connect: " + errno_text());
        break;
    }
    case RDMA_CM_EVENT_CONNECT_REQUEST: {
        const auto requester = check_one_way_proof(key_, "verbs", rank_, std::span(request.data(), request_bytes));
        std::string refused;
        if (!requester)
            refused = "it did not prove the run key (a process of another run, or a stranger)";
        else if (*requester >= rank_)
            refused = "it claims rank " + std::to_string(*requester) + ", which connects to this one, not from below";
        else if (peers_[*requester].id)
            refused = "rank " + std::to_string(*requester) + " is connected already";
        if (!refused.empty()) {
            logger("verbs").warn("dropped a connection request from {}: {}", requester_address(id), refused);
            rdma_reject(id, nullptr, 0);
            rdma_destroy_id(id);
            break;
        }
        peer = *requester;
        setup_qp(peer, id);
        rdma_conn_param param{};
        param.responder_resources = 1;
        param.initiator_depth = 1;
        param.rnr_retry_count = 7;
        if (rdma_accept(id, &param)) fail("rdma_accept: " + errno_text());
        break;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
        if (!peers_[peer].connected) {
            peers_[peer].connected = true;
            ++connected_;
        }
        break;
    case RDMA_CM_EVENT_DISCONNECTED:
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        if (peer < size_) lose(peer, type == RDMA_CM_EVENT_DISCONNECTED ? "disconnected" : "RDMA device removed");
        break;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_CONNECT_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_REJECTED: fail(rdma_event_str(type)); break;
    default: break;
    }
}

MemoryRegion VerbsTransport::register_memory(std::byte* base, std::size_t length) {
    // Nearly zero-based: a peer's remote address is the offset in the region plus the base's
    // offset in its page (zero for page-aligned pools).
    static const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const std::uint64_t page_offset = reinterpret_cast<std::uintptr_t>(base) % page;
    if (mrs_.size() + 1 > 0xFFFF) throw std::runtime_error("verbs: more than 65535 registered regions");
    ibv_mr* mr = ibv_reg_mr_iova(pd_, base, length, page_offset, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr) throw std::runtime_error("ibv_reg_mr of " + std::to_string(length) + " B failed: " + errno_text() + " (ulimit -l?)");
    mrs_.push_back(mr);
    MemoryRegion region{base, length, region_key(mr->rkey, page_offset, mrs_.size())};
    regions_.push_back(region);
    return region;
}

PostStatus VerbsTransport::can_post(std::uint32_t peer) {
    if (check_post(peer) != PostStatus::ok) return PostStatus::error;
    return peers_[peer].sends_outstanding >= send_depth ? PostStatus::no_resource : PostStatus::ok;
}

PostStatus VerbsTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (peer >= size_) {
        last_error_ = no_such_rank(peer, size_);
        return PostStatus::error;
    }
    if (peer == rank_) return send_to_self(command);
    if (PostStatus s = can_post(peer); s != PostStatus::ok) return s;
    Peer& p = peers_[peer];
    const std::uint32_t before = p.unsignalled;
    const bool signal = take_signal(p);
    ibv_sge sge{reinterpret_cast<std::uintptr_t>(command.data()), command_bytes, 0};
    ibv_send_wr wr{};
    // A signalled send retires itself and every unsignalled one before it (an RC QP completes in order).
    wr.wr_id = wr_id(kind_send, peer, signal ? before + 1 : 0);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_INLINE | (signal ? IBV_SEND_SIGNALED : 0);
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(p.qp, &wr, &bad)) {
        p.unsignalled = before;
        last_error_ = "ibv_post_send to rank " + std::to_string(peer) + ": " + errno_text();
        return PostStatus::error;
    }
    ++p.sends_outstanding;
    return PostStatus::ok;
}

PostStatus VerbsTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (peer >= size_) {
        last_error_ = no_such_rank(peer, size_);
        return PostStatus::error;
    }
    if (peer == rank_) { // to ourselves: a copy, with the completions the adapter would give
        // The key must be one of ours, as the adapter would check its rkey.
        const std::size_t index1 = key_index(w.remote_key);
        if (index1 == 0 || index1 > mrs_.size() || regions_[index1 - 1].key != w.remote_key) {
            last_error_ = "no registered region with key " + std::to_string(w.remote_key) + " here: a write outside the registered regions";
            return PostStatus::error;
        }
        WriteRequest own = w; // its region as this rank's table names it
        own.remote_key = index1;
        return write_to_self(regions_, own);
    }
    if (PostStatus s = can_post(peer); s != PostStatus::ok) return s;
    Peer& p = peers_[peer];
    if (p.sends_outstanding + 2 > send_depth) return PostStatus::no_resource; // the write and its notice
    const std::size_t local_index = key_index(w.local.key);
    if (local_index == 0 || local_index > mrs_.size()) {
        last_error_ = "write from an unregistered buffer";
        return PostStatus::error;
    }
    std::uint32_t slot;
    if (free_cookies_.empty()) {
        slot = static_cast<std::uint32_t>(write_slots_.size());
        write_slots_.emplace_back();
    } else {
        slot = free_cookies_.back();
        free_cookies_.pop_back();
    }
    // The notice is signalled: its completion means the data is in place and retires the
    // write, the notice and the unsignalled work requests before them.
    write_slots_[slot] = {w.cookie, p.unsignalled + 2};
    // Zero-based region: w.local addresses are offsets too.
    ibv_sge data{key_page_offset(w.local.key) + w.local_offset, static_cast<std::uint32_t>(w.length), mrs_[local_index - 1]->lkey};
    const std::uint64_t where[2] = {w.remote_offset, w.length};
    ibv_sge notice_sge{reinterpret_cast<std::uintptr_t>(where), sizeof where, 0};
    ibv_send_wr write{}, notice{};
    write.wr_id = wr_id(kind_write_data, peer, slot);
    write.sg_list = &data;
    write.num_sge = 1;
    write.opcode = IBV_WR_RDMA_WRITE;
    write.wr.rdma.remote_addr = key_page_offset(w.remote_key) + w.remote_offset;
    write.wr.rdma.rkey = key_rkey(w.remote_key);
    write.next = &notice;
    notice.wr_id = wr_id(kind_write, peer, slot);
    notice.sg_list = &notice_sge;
    notice.num_sge = 1;
    notice.opcode = IBV_WR_SEND_WITH_IMM;
    notice.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    notice.imm_data = htonl(w.imm);
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(p.qp, &write, &bad)) {
        free_cookies_.push_back(slot);
        last_error_ = "ibv_post_send (RDMA write) to rank " + std::to_string(peer) + ": " + errno_text();
        return PostStatus::error;
    }
    p.unsignalled = 0;
    p.sends_outstanding += 2;
    return PostStatus::ok;
}

void VerbsTransport::check_connection_events() {
    // A syscall: once a millisecond at most, not on every poll.
    const std::int64_t now =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    if (now < next_cm_check_ns_ || connected_ + 1 < size_) return;
    next_cm_check_ns_ = now + 1'000'000;
    rdma_cm_event* event = nullptr;
    while (rdma_get_cm_event(channel_, &event) == 0) handle_cm_event(event); // the channel is non-blocking now
}

std::size_t VerbsTransport::poll(std::span<Completion> out) {
    check_connection_events();
    std::size_t n = hand_out(ready_, out, 0);
    for (const ibv_wc& wc : taken_while_arming_) take(wc, out, n);
    taken_while_arming_.clear();
    ibv_wc wcs[32];
    int got = ibv_poll_cq(cq_, 32, wcs);
    for (int i = 0; i < got; ++i) take(wcs[i], out, n);
    for (std::uint32_t peer : peers_to_repost_) { // one chain per peer
        post_recvs(peer, peers_[peer].reposts);
        peers_[peer].reposts.clear();
    }
    peers_to_repost_.clear();
    n = hand_out(ready_, out, n);
    return n;
}

void VerbsTransport::take(const ibv_wc& wc, std::span<Completion> out, std::size_t& n) {
    const std::uint32_t peer = peer_of(wc.wr_id);
    Peer& p = peers_[peer];
    Completion c;
    c.peer = peer;
    if (wc.status != IBV_WC_SUCCESS) {
        if (kind_of(wc.wr_id) == kind_write) free_cookies_.push_back(index_of(wc.wr_id));
        lose(peer,
             wc.status == IBV_WC_REM_ACCESS_ERR ? "it refused a write outside its registered regions (remote access error)"
                                                : std::string("completion error ") + ibv_wc_status_str(wc.status));
        return;
    }
    switch (kind_of(wc.wr_id)) {
    case kind_recv: {
        const std::uint32_t slot = index_of(wc.wr_id);
        if (wc.wc_flags & IBV_WC_WITH_IMM) { // a write's notice: its data is in place
            std::uint64_t where[2];
            std::memcpy(where, p.recv_buffers[slot].data(), sizeof where);
            c = write_arrived(c.peer, ntohl(wc.imm_data), where[0], where[1]);
        } else {
            c.kind = Completion::Kind::message;
            c.command = p.recv_buffers[slot];
        }
        if (p.reposts.empty()) peers_to_repost_.push_back(peer);
        p.reposts.push_back(slot);
        break;
    }
    case kind_send: p.sends_outstanding -= index_of(wc.wr_id); return;
    case kind_write: {
        const WriteSlot& w = write_slots_[index_of(wc.wr_id)];
        p.sends_outstanding -= w.retires;
        c.kind = Completion::Kind::write_done;
        c.cookie = w.cookie;
        free_cookies_.push_back(index_of(wc.wr_id));
        break;
    }
    default: return;
    }
    if (n < out.size())
        out[n++] = c;
    else
        ready_.push(c);
}

void VerbsTransport::acknowledge_cq_events() {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    unsigned events = 0;
    while (ibv_get_cq_event(completion_channel_, &cq, &context) == 0) ++events; // non-blocking
    if (events) ibv_ack_cq_events(cq_, events);
}

Transport::WaitPlan VerbsTransport::prepare_wait(std::vector<int>& fds) {
    if (!ready_.empty() || !taken_while_arming_.empty()) return WaitPlan::poll_again;
    // Armed, then looked at once more: a completion that came before the arming raises no event.
    acknowledge_cq_events();
    if (ibv_req_notify_cq(cq_, 0) != 0) return WaitPlan::poll_again; // cannot arm: poll again
    ibv_wc wcs[32];
    const int got = ibv_poll_cq(cq_, 32, wcs);
    if (got > 0) {
        taken_while_arming_.assign(wcs, wcs + got);
        return WaitPlan::poll_again;
    }
    fds.push_back(completion_channel_->fd);
    fds.push_back(channel_->fd); // a peer that disconnects
    return WaitPlan::sleep;
}

} // namespace evb
