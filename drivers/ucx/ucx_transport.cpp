#include "drivers/ucx/ucx_transport.hpp"

#include "drivers/transport/address_text.hpp"
#include "drivers/transport/hand_out.hpp"
#include "core/machine_info.hpp"
#include "drivers/transport/write_target.hpp"

#include <ucs/debug/log_def.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace evb {
namespace {

std::string status_text(ucs_status_t s) { return ucs_status_string(s); }

void check(ucs_status_t s, const char* what) {
    if (s != UCS_OK) throw std::runtime_error(std::string("ucx: ") + what + ": " + status_text(s));
}

// The value a UCX setting has for this run: the flag, else the environment, else UCX's default.
std::string setting(const std::string& flag, const char* variable, const char* otherwise) {
    if (!flag.empty()) return flag;
    if (const char* env = std::getenv(variable)) return env;
    return otherwise;
}

// A context and its worker, as every rank and the preflight open them.
struct Started {
    ucp_context_h context = nullptr;
    ucp_worker_h worker = nullptr;
};

Started start_ucx(const UcxOptions& o) {
    ucp_config_t* config = nullptr;
    check(ucp_config_read(nullptr, nullptr, &config), "ucp_config_read");
    ucs_status_t s = UCS_OK;
    if (!o.tls.empty()) s = ucp_config_modify(config, "TLS", o.tls.c_str());
    if (s == UCS_OK && !o.devices.empty()) s = ucp_config_modify(config, "NET_DEVICES", o.devices.c_str());
    Started started;
    if (s == UCS_OK) {
        ucp_params_t params{};
        params.field_mask = UCP_PARAM_FIELD_FEATURES;
        params.features = UCP_FEATURE_RMA | UCP_FEATURE_AM | UCP_FEATURE_WAKEUP; // wakeup: an idle rank can sleep (--poll)
        s = ucp_init(&params, config, &started.context);
    }
    ucp_config_release(config);
    if (s != UCS_OK)
        throw std::runtime_error("ucx: cannot start UCX with UCX_TLS=" + setting(o.tls, "UCX_TLS", "all") + ": " + status_text(s));
    ucp_worker_params_t wp{};
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SINGLE;
    s = ucp_worker_create(started.context, &wp, &started.worker);
    if (s != UCS_OK) {
        ucp_cleanup(started.context);
        throw std::runtime_error("ucx: no UCX worker with UCX_TLS=" + setting(o.tls, "UCX_TLS", "all") +
                                 " and UCX_NET_DEVICES=" + setting(o.devices, "UCX_NET_DEVICES", "all") + ": " + status_text(s) +
                                 " (ucx_info -d lists what is here)");
    }
    return started;
}

template <unsigned Id>
ucs_status_t on_active_message(void* arg, const void* header, std::size_t header_length, void* data, std::size_t length,
                               const ucp_am_recv_param_t* param) {
    // Every message is sent eager (UCP_AM_SEND_FLAG_EAGER), so its data is here whole.
    if (header_length < UcxTransport::short_header || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) return UCS_OK;
    std::uint32_t rank; // the header's word
    std::memcpy(&rank, header, sizeof rank);
    static_cast<UcxTransport*>(arg)->on_message(Id, rank, data, length);
    return UCS_OK;
}

ucs_status_t on_write_message(void* arg, const void* header, std::size_t header_length, void* data, std::size_t length,
                              const ucp_am_recv_param_t* param) {
    if (header_length < sizeof(WriteHeader)) return UCS_OK;
    WriteHeader h;
    std::memcpy(&h, header, sizeof h);
    return static_cast<UcxTransport*>(arg)->on_write(h, data, length, (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0);
}

void on_send_done(void* request, ucs_status_t status, void* user_data) {
    auto* slot = static_cast<UcxTransport::SendSlot*>(user_data);
    slot->owner->on_sent(*slot, status);
    ucp_request_free(request);
}

struct PeerRef {
    UcxTransport* owner;
    std::uint32_t peer;
};

void wait_for(ucp_worker_h worker, ucs_status_ptr_t request) {
    if (request == nullptr || UCS_PTR_IS_ERR(request)) return;
    // Bounded: a close towards a peer that vanished must not hold the process.
    for (int i = 0; i < 2'000'000 && ucp_request_check_status(request) == UCS_INPROGRESS; ++i) ucp_worker_progress(worker);
    ucp_request_free(request);
}

} // namespace

std::optional<std::string> UcxTransport::start_problem(const UcxOptions& options) {
    try {
        Started s = start_ucx(options);
        ucp_worker_destroy(s.worker);
        ucp_cleanup(s.context);
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

UcxTransport::UcxTransport(std::uint32_t rank, std::uint32_t size, const UcxOptions& options, Picoseconds heartbeat)
    : PeerTransport(rank, size), options_(options), peers_(size), directory_(size, table_capacity) {
    use_heartbeat(heartbeat);
    if (options.write != "am" && options.write != "put")
        throw std::runtime_error("--ucx-write: unknown way '" + options.write + "' (choose am or put)");
    put_ = options.write == "put";
    Started s = start_ucx(options);
    context_ = s.context;
    worker_ = s.worker;
    if (ucp_worker_get_efd(worker_, &wait_fd_) != UCS_OK) wait_fd_ = -1;
    using Callback = ucp_am_recv_callback_t;
    const std::pair<unsigned, Callback> handlers[] = {
        {am_command, on_active_message<am_command>},         {am_notice, on_active_message<am_notice>},
        {am_heartbeat, on_active_message<am_heartbeat>},     {am_table_request, on_active_message<am_table_request>},
        {am_table_reply, on_active_message<am_table_reply>}, {am_write, on_write_message},
    };
    for (const auto& [id, cb] : handlers) {
        ucp_am_handler_param_t h{};
        h.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG |
            UCP_AM_HANDLER_PARAM_FIELD_FLAGS;
        h.id = id;
        h.cb = cb;
        h.arg = this;
        h.flags = UCP_AM_FLAG_WHOLE_MSG;
        check(ucp_worker_set_am_recv_handler(worker_, &h), "ucp_worker_set_am_recv_handler");
    }
    for (std::uint32_t p = 0; p < size; ++p) {
        peers_[p].owner = this;
        peers_[p].index = p;
    }
    const std::size_t writes = std::size_t{size} * writes_per_peer;
    write_slots_.resize(writes);
    for (std::size_t w = writes; w-- > 0;) free_writes_.push_back(static_cast<std::uint32_t>(w));
    // Commands and notices within each peer's share, plus heartbeats and table requests and replies.
    const std::size_t sends = std::size_t{size} * (messages_per_peer + 4);
    send_slots_.resize(sends);
    for (std::size_t i = sends; i-- > 0;) {
        send_slots_[i].owner = this;
        free_sends_.push_back(static_cast<std::uint32_t>(i));
    }
}

UcxTransport::~UcxTransport() {
    close_endpoints();
    for (auto* m : memhs_) ucp_mem_unmap(context_, m);
    if (worker_) ucp_worker_destroy(worker_);
    if (context_) ucp_cleanup(context_);
}

void UcxTransport::close_endpoints() {
    for (auto& p : peers_) {
        for (auto* k : p.rkeys)
            if (k) ucp_rkey_destroy(k);
        p.rkeys.clear();
    }
    for (auto& p : peers_) {
        if (!p.ep) continue;
        ucp_request_param_t param{};
        param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = UCP_EP_CLOSE_FLAG_FORCE; // a peer that is gone cannot confirm a graceful close
        wait_for(worker_, ucp_ep_close_nbx(p.ep, &param));
        p.ep = nullptr;
    }
}

NicName UcxTransport::nic() const {
    const std::string devices = setting(options_.devices, "UCX_NET_DEVICES", "");
    return devices == "all" ? NicName{} : nic_named(devices.substr(0, devices.find(',')));
}

std::string UcxTransport::describe() const {
    unsigned major = 0, minor = 0, release = 0;
    ucp_get_version(&major, &minor, &release);
    return "UCX " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) +
        ", UCX_TLS=" + setting(options_.tls, "UCX_TLS", "all") +
        ", UCX_NET_DEVICES=" + setting(options_.devices, "UCX_NET_DEVICES", "all") +
        (peer_failure_handled_
             ? ""
             : ", no peer failure handler: UCX does not see a peer die (the run's control connections and --heartbeat do)") +
        (wait_fd_ < 0 ? ", no wait object: a rank with nothing in flight naps" : "");
}

std::string UcxTransport::local_address() {
    ucp_address_t* address = nullptr;
    std::size_t length = 0;
    check(ucp_worker_get_address(worker_, &address, &length), "ucp_worker_get_address");
    const std::string text = address_to_text(address, length);
    ucp_worker_release_address(worker_, address);
    return text;
}

namespace {

// UCX 1.13 logs an ERROR when an endpoint asks for peer failure handling over transports that
// have none (shared memory: "no active messages transport to ...: self/memory0 - no peer failure
// handler"), though connect() then creates it without: on every rank, a line that looks like a
// failure of a run that goes on well. Only that message is dropped, only during that attempt.
ucs_log_func_rc_t drop_no_peer_failure_handler_error(const char*, unsigned, const char*, ucs_log_level_t level,
                                                     const ucs_log_component_config_t*, const char* format, va_list ap) {
    if (level != UCS_LOG_LEVEL_ERROR) return UCS_LOG_FUNC_RC_CONTINUE;
    char text[1024];
    va_list copy;
    va_copy(copy, ap);
    std::vsnprintf(text, sizeof text, format, copy);
    va_end(copy);
    const bool that_one = std::strstr(text, " transport to ") != nullptr && std::strstr(text, "no peer failure handler") != nullptr;
    return that_one ? UCS_LOG_FUNC_RC_STOP : UCS_LOG_FUNC_RC_CONTINUE;
}

} // namespace

void UcxTransport::connect(const std::vector<std::string>& addresses, Picoseconds) {
    if (addresses.size() != size_) throw std::runtime_error("ucx: expected " + std::to_string(size_) + " addresses");
    for (std::uint32_t r = 0; r < size_; ++r) {
        if (r == rank_) continue; // writes and commands to self are delivered in place
        const std::vector<unsigned char> bytes = address_from_text(addresses[r]);
        if (bytes.empty()) throw std::runtime_error("ucx: rank " + std::to_string(r) + "'s address is not a UCX worker address");
        ucp_ep_params_t ep{};
        ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
        ep.address = reinterpret_cast<const ucp_address_t*>(bytes.data());
        ep.err_mode = peer_failure_handled_ ? UCP_ERR_HANDLING_MODE_PEER : UCP_ERR_HANDLING_MODE_NONE;
        ep.err_handler.cb = [](void* arg, ucp_ep_h, ucs_status_t status) {
            auto* p = static_cast<Peer*>(arg);
            p->owner->on_peer_error(p->index, status);
        };
        ep.err_handler.arg = &peers_[r];
        if (peer_failure_handled_) ucs_log_push_handler(drop_no_peer_failure_handler_error);
        ucs_status_t s = ucp_ep_create(worker_, &ep, &peers_[r].ep);
        if (peer_failure_handled_) ucs_log_pop_handler();
        if (s == UCS_ERR_UNREACHABLE && peer_failure_handled_) {
            // UCX 1.13's shared-memory transports have no peer failure handler: without one, a
            // peer that dies is found by the heartbeat alone (or, in a run, its control connection).
            peer_failure_handled_ = false;
            ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
            s = ucp_ep_create(worker_, &ep, &peers_[r].ep);
        }
        if (s != UCS_OK)
            throw std::runtime_error("ucx: no endpoint to rank " + std::to_string(r) + ": " + status_text(s) +
                                     " (do both ranks share a UCX transport? UCX_TLS=" + setting(options_.tls, "UCX_TLS", "all") + ")");
    }
    start_heartbeat();
}

MemoryRegion UcxTransport::register_memory(std::byte* base, std::size_t length) {
    ucp_mem_map_params_t params{};
    params.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
    params.address = base;
    params.length = length;
    ucp_mem_h memh = nullptr;
    check(ucp_mem_map(context_, &params, &memh), "ucp_mem_map");
    void* packed = nullptr;
    std::size_t packed_size = 0;
    const ucs_status_t s = ucp_rkey_pack(context_, memh, &packed, &packed_size);
    if (s != UCS_OK) {
        ucp_mem_unmap(context_, memh);
        check(s, "ucp_rkey_pack");
    }
    const auto* p = static_cast<const std::byte*>(packed);
    packed_rkeys_.emplace_back(p, p + packed_size);
    ucp_rkey_buffer_release(packed);
    memhs_.push_back(memh);
    const std::uint64_t key = directory_.add(reinterpret_cast<std::uintptr_t>(base), length);
    MemoryRegion region{base, length, key};
    regions_.push_back(region);
    return region;
}

void UcxTransport::on_peer_error(std::uint32_t peer, ucs_status_t status) { lose(peer, "UCX endpoint error: " + status_text(status)); }

PostStatus UcxTransport::check_peer(std::uint32_t peer) { return check_post(peer); }

PostStatus UcxTransport::queued(std::uint32_t peer) const {
    const Peer& p = peers_[peer];
    return p.queue.size() + p.messages_in_flight >= messages_per_peer ? PostStatus::no_resource : PostStatus::ok;
}

UcxTransport::SendSlot* UcxTransport::take_slot(std::uint32_t peer) {
    if (free_sends_.empty()) return nullptr;
    SendSlot& s = send_slots_[free_sends_.back()];
    free_sends_.pop_back();
    s.peer = peer;
    s.write = -1;
    s.counted = false;
    s.large.clear();
    return &s;
}

void UcxTransport::release(SendSlot& slot) { free_sends_.push_back(static_cast<std::uint32_t>(&slot - send_slots_.data())); }

bool UcxTransport::send(SendSlot& slot, unsigned id, const void* body, std::size_t length, std::size_t header_length, ucp_mem_h memh) {
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    if (id != am_write) { // small messages, whole at the target (a write may go by rendezvous)
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
        param.flags = UCP_AM_SEND_FLAG_EAGER;
    }
    if (memh) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
        param.memh = memh;
    }
    param.cb.send = on_send_done;
    param.user_data = &slot;
    slot.header.word = rank_;
    const ucs_status_ptr_t r = ucp_am_send_nbx(peers_[slot.peer].ep, id, &slot.header, header_length, body, length, &param);
    if (r == nullptr)
        on_sent(slot, UCS_OK);
    else if (UCS_PTR_IS_ERR(r))
        on_sent(slot, UCS_PTR_STATUS(r));
    return !UCS_PTR_IS_ERR(r);
}

void UcxTransport::on_sent(SendSlot& slot, ucs_status_t status) {
    Peer& p = peers_[slot.peer];
    if (slot.counted) --p.messages_in_flight;
    if (slot.write >= 0) {
        const auto w = static_cast<std::uint32_t>(slot.write);
        --p.writes;
        free_writes_.push_back(w);
        if (status == UCS_OK) {
            Completion c;
            c.kind = Completion::Kind::write_done;
            c.peer = slot.peer;
            c.cookie = write_slots_[w].cookie;
            ready_.push(c);
        }
    }
    if (status != UCS_OK && status != UCS_ERR_CANCELED) lose(slot.peer, "UCX send failed: " + status_text(status));
    release(slot);
}

PostStatus UcxTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return send_to_self(command);
    if (queued(peer) != PostStatus::ok) return PostStatus::no_resource;
    Outgoing o;
    o.command = command;
    peers_[peer].queue.push(o);
    send_queued(peer);
    return PostStatus::ok;
}

PostStatus UcxTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return write_to_self(regions_, w);
    if (w.local.key == 0 || w.local.key > memhs_.size()) {
        last_error_ = "write from an unregistered buffer";
        return PostStatus::error;
    }
    Peer& p = peers_[peer];
    if (p.writes >= writes_per_peer || free_writes_.empty() || queued(peer) != PostStatus::ok) return PostStatus::no_resource;
    if (!put_) { // an active message carrying the data, checked and placed by the target
        const std::uint32_t slot = free_writes_.back();
        free_writes_.pop_back();
        write_slots_[slot] = {peer,
                              w.cookie,
                              WriteNotice{w.remote_offset, w.length, w.imm, 0},
                              true,
                              w.local.base + w.local_offset,
                              memhs_[w.local.key - 1],
                              w.remote_key};
        ++p.writes;
        Outgoing o;
        o.kind = Outgoing::Kind::write;
        o.write = slot;
        p.queue.push(o);
        send_queued(peer);
        return PostStatus::ok;
    }
    RegionEntry target;
    switch (directory_.find(peer, w.remote_key, w.remote_offset, w.length, target)) {
    case RegionDirectory::Lookup::found: break;
    case RegionDirectory::Lookup::wait: return PostStatus::no_resource;
    case RegionDirectory::Lookup::refused: last_error_ = directory_.why(); return PostStatus::error;
    case RegionDirectory::Lookup::fetch: {
        // Ask the target for its table; the post is retried (no_resource) until it is here.
        SendSlot* s = take_slot(peer);
        if (!s) {
            directory_.fetch_failed(peer);
            return PostStatus::no_resource;
        }
        p.table_requested = true;
        return send(*s, am_table_request, nullptr, 0) ? PostStatus::no_resource : check_peer(peer);
    }
    }
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_MEMH | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    param.memh = memhs_[w.local.key - 1];
    param.memory_type = UCS_MEMORY_TYPE_HOST;
    const ucs_status_ptr_t r =
        ucp_put_nbx(p.ep, w.local.base + w.local_offset, w.length, target.base + w.remote_offset, p.rkeys[w.remote_key - 1], &param);
    if (UCS_PTR_IS_ERR(r)) {
        last_error_ = "ucp_put_nbx to rank " + std::to_string(peer) + ": " + status_text(UCS_PTR_STATUS(r));
        return PostStatus::error;
    }
    if (r) ucp_request_free(r); // the flush that follows tells when it is done
    const std::uint32_t slot = free_writes_.back();
    free_writes_.pop_back();
    write_slots_[slot] = {peer, w.cookie, WriteNotice{w.remote_offset, w.length, w.imm, 0}, false, nullptr, nullptr, w.remote_key};
    ++p.writes;
    p.unflushed.push_back(slot);
    Outgoing o;
    o.kind = Outgoing::Kind::notice;
    o.write = slot;
    p.queue.push(o);
    return PostStatus::ok; // the flush starts at the next poll, covering every put posted till then
}

void UcxTransport::start_flush(std::uint32_t peer) {
    Peer& p = peers_[peer];
    if (p.flush_in_flight || p.unflushed.empty() || lost(peer)) return;
    p.flushing.swap(p.unflushed);
    p.unflushed.clear();
    p.flush_in_flight = true;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    param.cb.send = [](void* request, ucs_status_t status, void* user_data) {
        auto* q = static_cast<Peer*>(user_data);
        q->owner->on_flushed(q->index, status);
        ucp_request_free(request);
    };
    param.user_data = &p;
    const ucs_status_ptr_t r = ucp_ep_flush_nbx(p.ep, &param);
    if (r == nullptr)
        on_flushed(peer, UCS_OK);
    else if (UCS_PTR_IS_ERR(r))
        on_flushed(peer, UCS_PTR_STATUS(r));
}

void UcxTransport::on_flushed(std::uint32_t peer, ucs_status_t status) {
    Peer& p = peers_[peer];
    p.flush_in_flight = false;
    if (status != UCS_OK) {
        lose(peer, "UCX flush of writes failed: " + status_text(status));
        return;
    }
    for (std::uint32_t w : p.flushing) write_slots_[w].flushed = true;
    p.flushing.clear();
}

void UcxTransport::send_queued(std::uint32_t peer) {
    Peer& p = peers_[peer];
    while (!p.queue.empty() && !lost(peer)) {
        const Outgoing o = p.queue.front();
        if (o.kind == Outgoing::Kind::notice && !write_slots_[o.write].flushed) return; // its data is not yet known to be there
        SendSlot* s = take_slot(peer);
        if (!s) return;
        s->counted = true;
        ++p.messages_in_flight;
        p.queue.pop();
        bool sent;
        if (o.kind == Outgoing::Kind::command) {
            s->body = o.command;
            sent = send(*s, am_command, s->body.data(), command_bytes);
        } else if (o.kind == Outgoing::Kind::notice) {
            s->write = o.write;
            std::memcpy(s->body.data(), &write_slots_[o.write].notice, sizeof(WriteNotice));
            sent = send(*s, am_notice, s->body.data(), sizeof(WriteNotice));
        } else {
            const WriteSlot& w = write_slots_[o.write];
            s->write = o.write;
            s->header.imm = w.notice.imm;
            s->header.key = w.key;
            s->header.offset = w.notice.offset;
            s->header.length = w.notice.length;
            sent = send(*s, am_write, w.data, w.notice.length, sizeof(WriteHeader), w.memh);
        }
        if (!sent) return;
    }
}

void UcxTransport::on_message(unsigned id, std::uint32_t from, const void* data, std::size_t length) {
    if (from >= size_ || from == rank_) return;
    heard_from(from);
    Completion c;
    c.peer = from;
    switch (id) {
    case am_command:
        if (length != command_bytes) return;
        c.kind = Completion::Kind::message;
        std::memcpy(c.command.data(), data, command_bytes);
        ready_.push(c);
        return;
    case am_notice: {
        if (length != sizeof(WriteNotice)) return;
        WriteNotice n;
        std::memcpy(&n, data, sizeof n);
        ready_.push(write_arrived(c.peer, n.imm, n.offset, n.length));
        return;
    }
    case am_table_request: table_requests_.push_back(from); return;
    case am_table_reply: {
        const auto* b = static_cast<const std::byte*>(data);
        peers_[from].table_reply.assign(b, b + length);
        tables_arrived_.push_back(from);
        return;
    }
    default: return; // a heartbeat: being heard of is all it says
    }
}

ucs_status_t UcxTransport::on_write(const WriteHeader& h, void* data, std::size_t length, bool rendezvous) {
    const std::uint32_t from = h.word;
    if (from >= size_ || from == rank_) return UCS_OK;
    heard_from(from);
    WriteTarget t = write_target(regions_, h.key, h.offset, h.length);
    if (t.at && h.length != length)
        t = {nullptr, "a write header of " + std::to_string(h.length) + " B with " + std::to_string(length) + " B of data"};
    if (!t.at) {
        lose(from, "it sent " + t.why);
        return rendezvous ? UCS_ERR_INVALID_PARAM : UCS_OK; // the data is dropped, never placed
    }
    std::byte* target = t.at;
    auto* a = new Arrival{this, write_arrived(from, h.imm, h.offset, h.length)};
    if (!rendezvous) { // eager: the data is here, valid during this call
        std::memcpy(target, data, length);
        on_arrived(a, UCS_OK);
        return UCS_OK;
    }
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMH;
    param.cb.recv_am = [](void* request, ucs_status_t status, std::size_t, void* user_data) {
        auto* arrival = static_cast<Arrival*>(user_data);
        arrival->owner->on_arrived(arrival, status);
        ucp_request_free(request);
    };
    param.user_data = a;
    param.memh = memhs_[h.key - 1];
    const ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker_, data, target, length, &param);
    if (r == nullptr)
        on_arrived(a, UCS_OK);
    else if (UCS_PTR_IS_ERR(r))
        on_arrived(a, UCS_PTR_STATUS(r));
    return UCS_INPROGRESS;
}

void UcxTransport::on_arrived(Arrival* a, ucs_status_t status) {
    const std::unique_ptr<Arrival> owned(a);
    if (status == UCS_OK)
        ready_.push(a->completion);
    else
        lose(a->completion.peer, "receiving a write's data failed: " + status_text(status));
}

// A table reply: a count, then per region its base, its length and its packed rkey.
void UcxTransport::answer_table_request(std::uint32_t peer) {
    if (lost(peer)) return;
    SendSlot* s = take_slot(peer);
    if (!s) {
        table_requests_.push_back(peer); // asked again at the next poll
        return;
    }
    auto put = [&](const void* v, std::size_t n) {
        const auto* b = static_cast<const std::byte*>(v);
        s->large.insert(s->large.end(), b, b + n);
    };
    const auto count = static_cast<std::uint32_t>(regions_.size());
    put(&count, sizeof count);
    for (std::uint32_t i = 0; i < count; ++i) {
        const RegionEntry& e = directory_.table()[i];
        const auto rkey_size = static_cast<std::uint32_t>(packed_rkeys_[i].size());
        put(&e, sizeof e);
        put(&rkey_size, sizeof rkey_size);
        put(packed_rkeys_[i].data(), rkey_size);
    }
    send(*s, am_table_reply, s->large.data(), s->large.size());
}

void UcxTransport::take_table(std::uint32_t peer) {
    Peer& p = peers_[peer];
    if (!p.table_requested || lost(peer)) return;
    p.table_requested = false;
    const std::vector<std::byte>& b = p.table_reply;
    std::size_t at = 0;
    auto get = [&](void* v, std::size_t n) {
        if (at + n > b.size()) return false;
        std::memcpy(v, b.data() + at, n);
        at += n;
        return true;
    };
    std::uint32_t count = 0;
    RegionEntry* entries = directory_.fetch_buffer(peer);
    std::vector<ucp_rkey_h> rkeys;
    bool whole = get(&count, sizeof count) && count <= table_capacity;
    for (std::uint32_t i = 0; whole && i < count; ++i) {
        std::uint32_t rkey_size = 0;
        whole = get(&entries[i], sizeof(RegionEntry)) && get(&rkey_size, sizeof rkey_size) && at + rkey_size <= b.size();
        if (!whole) break;
        ucp_rkey_h rkey = nullptr;
        // Unpacked once per peer and region: kept until the table is read again.
        if (i < p.rkeys.size() && p.rkeys[i]) {
            rkey = p.rkeys[i];
            p.rkeys[i] = nullptr;
        } else if (ucp_ep_rkey_unpack(p.ep, b.data() + at, &rkey) != UCS_OK) {
            whole = false;
            break;
        }
        rkeys.push_back(rkey);
        at += rkey_size;
    }
    for (auto* k : p.rkeys)
        if (k) ucp_rkey_destroy(k);
    p.rkeys = std::move(rkeys);
    p.table_reply.clear();
    if (!whole) {
        directory_.fetch_failed(peer);
        lose(peer, "its region table arrived damaged");
        return;
    }
    directory_.fetched(peer);
}

Transport::WaitPlan UcxTransport::prepare_wait(std::vector<int>& fds) {
    if (!ready_.empty() || !tables_arrived_.empty() || !table_requests_.empty()) return WaitPlan::poll_again;
    // No wait object: the executor naps (Reactor::idle) while the rank only waits for its peers,
    // and yields while its own writes need our calls to progress.
    if (wait_fd_ < 0) return free_writes_.size() == write_slots_.size() ? WaitPlan::sleep : WaitPlan::yield;
    if (ucp_worker_arm(worker_) != UCS_OK) return WaitPlan::poll_again; // UCS_ERR_BUSY: events are there, progress first
    fds.push_back(wait_fd_);
    return WaitPlan::sleep;
}

std::size_t UcxTransport::poll(std::span<Completion> out) {
    keep_alive(
        [&](std::uint32_t peer) {
            if (lost(peer) || queued(peer) != PostStatus::ok) return; // a peer that does not read gets no more
            if (SendSlot* s = take_slot(peer)) send(*s, am_heartbeat, nullptr, 0);
        },
        [&](std::uint32_t peer, const std::string& why) { lose(peer, why); });
    for (int i = 0; i < 16 && ucp_worker_progress(worker_) != 0; ++i) {}
    if (!tables_arrived_.empty()) {
        std::vector<std::uint32_t> arrived;
        arrived.swap(tables_arrived_);
        for (std::uint32_t peer : arrived) take_table(peer);
    }
    if (!table_requests_.empty()) {
        std::vector<std::uint32_t> asked;
        asked.swap(table_requests_);
        for (std::uint32_t peer : asked) answer_table_request(peer);
    }
    for (std::uint32_t peer = 0; peer < size_; ++peer) {
        Peer& p = peers_[peer];
        if (lost(peer)) continue;
        if (!p.unflushed.empty()) start_flush(peer);
        if (!p.queue.empty()) send_queued(peer);
    }
    return hand_out(ready_, out, 0);
}

} // namespace evb
