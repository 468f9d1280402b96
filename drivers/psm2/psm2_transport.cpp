#include "drivers/psm2/psm2_transport.hpp"

#include "drivers/transport/hand_out.hpp"
#include "drivers/transport/write_target.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace evb {
namespace {

constexpr std::uint32_t tag_control = 1, tag_data = 2;
constexpr std::int64_t connect_timeout_ns = 30'000'000'000;

std::string psm2_text(psm2_error_t e) {
    const char* s = psm2_error_get_string(e);
    return s ? s : "error " + std::to_string(static_cast<int>(e));
}

// psm2_init once per process, psm2_finalize when it exits (transports may come and go).
void psm2_init_once() {
    static std::once_flag once;
    static psm2_error_t result = PSM2_OK;
    std::call_once(once, [] {
        psm2_error_register_handler(nullptr, PSM2_ERRHANDLER_NO_HANDLER); // errors returned, never fatal
        int major = PSM2_VERNO_MAJOR, minor = PSM2_VERNO_MINOR;
        result = psm2_init(&major, &minor);
        if (result == PSM2_OK) std::atexit([] { psm2_finalize(); });
    });
    if (result != PSM2_OK)
        throw std::runtime_error("psm2: psm2_init failed (" + psm2_text(result) +
                                 "): PSM2 needs an Omni-Path adapter with the hfi1 driver loaded (lsmod | grep hfi1; ls /dev/hfi1_*) "
                                 "and devices PSM2_DEVICES allows");
}

// The job's key: every rank of one job must open its endpoint with the same one, and two jobs on
// one host with different ones. The flag, else the launcher's job identity, else a constant.
void job_uuid(const Psm2Options& o, psm2_uuid_t uuid) {
    std::string key = o.job_key;
    if (key.empty()) {
        const char* job = std::getenv("SLURM_JOB_ID");
        const char* step = std::getenv("SLURM_STEP_ID");
        const char* ompi = std::getenv("OMPI_MCA_orte_precondition_transports");
        if (job)
            key = std::string(job) + "." + (step ? step : "");
        else if (ompi)
            key = ompi;
        else
            key = "evbench";
    }
    std::uint64_t h[2] = {1469598103934665603ULL, 1099511628211ULL}; // two FNV-1a hashes, different seeds
    for (char c : key)
        for (auto& v : h) v = (v ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    std::memcpy(uuid, h, 16);
}

psm2_mq_tag_t make_tag(std::uint32_t t0, std::uint32_t t1, std::uint32_t t2) {
    psm2_mq_tag_t t;
    t.tag0 = t0;
    t.tag1 = t1;
    t.tag2 = t2;
    return t;
}

void* context_of(std::uint32_t index) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(index)); }
std::uint32_t index_of(void* context) { return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(context)); }

} // namespace

std::optional<std::string> Psm2Transport::start_problem() {
    try {
        psm2_init_once();
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

Psm2Transport::Psm2Transport(std::uint32_t rank, std::uint32_t size, const Psm2Options& options, Picoseconds heartbeat)
    : PeerTransport(rank, size), peers_(size) {
    use_heartbeat(heartbeat);
    psm2_init_once();
    psm2_uuid_t uuid;
    job_uuid(options, uuid);
    psm2_ep_open_opts opts;
    psm2_ep_open_opts_get_defaults(&opts);
    if (psm2_error_t e = psm2_ep_open(uuid, &opts, &ep_, &epid_); e != PSM2_OK)
        throw std::runtime_error("psm2: psm2_ep_open failed: " + psm2_text(e) + " (is every hfi1 context taken? PSM2_DEVICES?)");
    if (psm2_error_t e = psm2_mq_init(ep_, PSM2_MQ_ORDERMASK_ALL, nullptr, 0, &mq_); e != PSM2_OK) {
        psm2_ep_close(ep_, PSM2_EP_CLOSE_FORCE, 0);
        throw std::runtime_error("psm2: psm2_mq_init failed: " + psm2_text(e));
    }
    recv_buffers_.resize(receives);
    control_source_.assign(receives, -1);
    send_buffers_.resize(std::size_t{size} * sends_per_peer);
    for (std::size_t s = send_buffers_.size(); s-- > 0;) free_sends_.push_back(static_cast<std::uint32_t>(s));
    for (std::uint32_t s = 0; s < receives; ++s) post_control_recv(s);
}

Psm2Transport::~Psm2Transport() {
    if (mq_) psm2_mq_finalize(mq_);
    if (ep_) psm2_ep_close(ep_, PSM2_EP_CLOSE_FORCE, 0); // a peer that is gone cannot take part in a graceful close
}

std::string Psm2Transport::describe() const {
    return "PSM2 " + std::to_string(PSM2_VERNO_MAJOR) + "." + std::to_string(PSM2_VERNO_MINOR) +
        (std::getenv("PSM2_DEVICES") ? std::string(", PSM2_DEVICES=") + std::getenv("PSM2_DEVICES") : "");
}

std::string Psm2Transport::local_address() { return std::to_string(epid_); }

void Psm2Transport::connect(const std::vector<std::string>& addresses, Picoseconds) {
    if (addresses.size() != size_) throw std::runtime_error("psm2: expected " + std::to_string(size_) + " addresses");
    std::vector<psm2_epid_t> epids(size_);
    std::vector<int> mask(size_, 1);
    for (std::uint32_t r = 0; r < size_; ++r) {
        char* end = nullptr;
        epids[r] = std::strtoull(addresses[r].c_str(), &end, 10);
        if (addresses[r].empty() || *end != '\0')
            throw std::runtime_error("psm2: rank " + std::to_string(r) + "'s address is not a PSM2 endpoint id");
    }
    mask[rank_] = 0; // writes and commands to self are delivered in place
    std::vector<psm2_error_t> errors(size_, PSM2_OK);
    std::vector<psm2_epaddr_t> epaddrs(size_, nullptr);
    const psm2_error_t e =
        psm2_ep_connect(ep_, static_cast<int>(size_), epids.data(), mask.data(), errors.data(), epaddrs.data(), connect_timeout_ns);
    for (std::uint32_t r = 0; r < size_; ++r)
        if (r != rank_ && errors[r] != PSM2_OK)
            throw std::runtime_error("psm2: cannot connect to rank " + std::to_string(r) + ": " + psm2_text(errors[r]));
    if (e != PSM2_OK) throw std::runtime_error("psm2: psm2_ep_connect failed: " + psm2_text(e));
    for (std::uint32_t r = 0; r < size_; ++r) peers_[r].address = epaddrs[r];
    start_heartbeat();
}

MemoryRegion Psm2Transport::register_memory(std::byte* base, std::size_t length) {
    // Nothing to register: PSM2 pins what it sends and receives itself.
    MemoryRegion region{base, length, regions_.size() + 1};
    regions_.push_back(region);
    return region;
}

void Psm2Transport::post_control_recv(std::uint32_t slot) {
    psm2_mq_tag_t tag = make_tag(tag_control, 0, 0), select = make_tag(0xFFFFFFFF, 0, 0);
    const std::uint32_t i = pending_.add(Pending{Pending::Op::control_recv, slot});
    psm2_mq_req_t request;
    const psm2_error_t e =
        psm2_mq_irecv2(mq_, PSM2_MQ_ANY_ADDR, &tag, &select, 0, &recv_buffers_[slot], sizeof(Control), context_of(i), &request);
    if (e != PSM2_OK) throw std::runtime_error("psm2: psm2_mq_irecv2 failed: " + psm2_text(e));
    control_source_[slot] = -1;
    control_order_.push(slot);
}

PostStatus Psm2Transport::check_peer(std::uint32_t peer) { return check_post(peer); }

PostStatus Psm2Transport::send_control(std::uint32_t peer, const Control& control) {
    if (free_sends_.empty() || peers_[peer].in_flight >= sends_per_peer) return PostStatus::no_resource;
    const std::uint32_t slot = free_sends_.back();
    send_buffers_[slot] = control;
    psm2_mq_tag_t tag = make_tag(tag_control, rank_, 0);
    const std::uint32_t i = pending_.add(Pending{Pending::Op::control_send, slot, peer});
    psm2_mq_req_t request;
    const psm2_error_t e =
        psm2_mq_isend2(mq_, peers_[peer].address, 0, &tag, &send_buffers_[slot], sizeof(Control), context_of(i), &request);
    if (e != PSM2_OK) {
        pending_.release(i);
        last_error_ = "psm2_mq_isend2 to rank " + std::to_string(peer) + ": " + psm2_text(e);
        return PostStatus::error;
    }
    free_sends_.pop_back();
    ++peers_[peer].in_flight;
    ++transfers_;
    return PostStatus::ok;
}

PostStatus Psm2Transport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return send_to_self(command);
    Control c{};
    c.head.word = Control::command;
    c.payload = command;
    return send_control(peer, c);
}

PostStatus Psm2Transport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return write_to_self(regions_, w);
    Peer& p = peers_[peer];
    if (p.in_flight + 2 > sends_per_peer || free_sends_.empty()) return PostStatus::no_resource; // header and data
    Control c{};
    c.head = {Control::write_header, w.imm, w.remote_key, w.remote_offset, w.length};
    c.data_sequence = p.data_sequence;
    if (PostStatus s = send_control(peer, c); s != PostStatus::ok) return s;
    psm2_mq_tag_t tag = make_tag(tag_data, rank_, p.data_sequence++);
    const std::uint32_t i = pending_.add(Pending{Pending::Op::data_send, 0, peer, w.imm, w.remote_offset, w.length, w.cookie});
    psm2_mq_req_t request;
    const psm2_error_t e = psm2_mq_isend2(mq_, p.address, 0, &tag, w.local.base + w.local_offset, static_cast<std::uint32_t>(w.length),
                                          context_of(i), &request);
    if (e != PSM2_OK) {
        pending_.release(i);
        lose(peer, "psm2_mq_isend2 of a write's data failed: " + psm2_text(e)); // its header is already on the way
        return PostStatus::ok;
    }
    ++p.in_flight;
    ++transfers_;
    return PostStatus::ok;
}

void Psm2Transport::handle_control(std::uint32_t slot, std::uint32_t source) {
    const Control copy = recv_buffers_[slot];
    post_control_recv(slot); // keep the receive posted before acting on the packet
    if (source >= size_) return;
    heard_from(source);
    Completion c;
    c.peer = source;
    const WriteHeader& h = copy.head;
    if (h.word == Control::heartbeat) return;
    if (h.word == Control::command) {
        c.kind = Completion::Kind::message;
        c.command = copy.payload;
        ready_.push(c);
        return;
    }
    const WriteTarget target = write_target(regions_, h.key, h.offset, h.length);
    if (!target.at) {
        lose(source, "it sent " + target.why);
        return;
    }
    // A write header: its data lands at region `key` + offset, on the tag of its sequence.
    psm2_mq_tag_t tag = make_tag(tag_data, source, copy.data_sequence), select = make_tag(0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF);
    const std::uint32_t i = pending_.add(Pending{Pending::Op::data_recv, 0, source, h.imm, h.offset, h.length});
    psm2_mq_req_t request;
    const psm2_error_t e = psm2_mq_irecv2(mq_, peers_[source].address, &tag, &select, 0, target.at, static_cast<std::uint32_t>(h.length),
                                          context_of(i), &request);
    if (e != PSM2_OK) {
        pending_.release(i);
        lose(source, "psm2_mq_irecv2 of a write's data failed: " + psm2_text(e));
        return;
    }
    ++transfers_;
}

std::size_t Psm2Transport::poll(std::span<Completion> out) {
    keep_alive(
        [&](std::uint32_t peer) {
            if (lost(peer)) return;
            Control beat{};
            beat.head.word = Control::heartbeat;
            (void)send_control(peer, beat); // a full queue skips one beat
        },
        [&](std::uint32_t peer, const std::string& why) { lose(peer, why); });
    psm2_poll(ep_);
    for (;;) {
        psm2_mq_req_t request;
        psm2_mq_status2_t status;
        if (psm2_mq_ipeek2(mq_, &request, &status) != PSM2_OK) break;
        psm2_mq_test2(&request, &status);
        const std::uint32_t i = index_of(status.context);
        const Pending p = pending_.take(i);
        if (p.op != Pending::Op::control_recv) --transfers_;
        if (status.error_code != PSM2_OK && p.op != Pending::Op::control_recv) {
            if (p.op == Pending::Op::control_send) free_sends_.push_back(p.slot);
            lose(p.peer, psm2_text(status.error_code));
            continue;
        }
        Completion c;
        c.peer = p.peer;
        switch (p.op) {
        case Pending::Op::control_recv: control_source_[p.slot] = status.msg_tag.tag1; continue;
        case Pending::Op::control_send:
            free_sends_.push_back(p.slot);
            --peers_[p.peer].in_flight;
            continue;
        case Pending::Op::data_send:
            --peers_[p.peer].in_flight;
            c.kind = Completion::Kind::write_done;
            c.cookie = p.cookie;
            break;
        case Pending::Op::data_recv: c = write_arrived(c.peer, p.imm, p.offset, p.length); break;
        }
        ready_.push(c);
    }
    // Control packets in the order their receives were posted, the order MQ matched them.
    while (!control_order_.empty() && control_source_[control_order_.front()] >= 0) {
        const std::uint32_t slot = control_order_.front();
        control_order_.pop();
        handle_control(slot, static_cast<std::uint32_t>(control_source_[slot]));
    }
    return hand_out(ready_, out, 0);
}

} // namespace evb
