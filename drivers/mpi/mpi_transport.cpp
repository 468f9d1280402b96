#include "drivers/mpi/mpi_transport.hpp"

#include "drivers/transport/hand_out.hpp"
#include "drivers/transport/write_target.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

namespace evb {
namespace {

// Each write's data has its own tag (per sender and target, cycling): the receiver posts the
// receive for it when the header arrives, in whatever order it handles headers.
constexpr int control_tag = 1, first_data_tag = 2, data_tags = 30000;
constexpr std::uint32_t control_receives = 16; // pre-posted, from any source (more wait in MPI as unexpected messages)

std::string mpi_error(int code) {
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}

void finalize_at_exit() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

} // namespace

void mpi_init_once() {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (initialised) return;
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    std::atexit(finalize_at_exit);
    if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI provides no MPI_THREAD_FUNNELED support");
}

MpiTransport::MpiTransport(std::uint32_t rank, std::uint32_t size, bool rma) : PeerTransport(rank, size), rma_(rma) {
    mpi_init_once();
    int r = 0, s = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    if (static_cast<std::uint32_t>(r) != rank || static_cast<std::uint32_t>(s) != size)
        throw std::runtime_error(fmt::format(
            "MPI says rank {} of {}, the launcher rank {} of {}: start evbench with mpirun or srun --mpi=pmix", r, s, rank, size));
    init(MPI_COMM_WORLD);
}

MpiTransport::MpiTransport(MPI_Comm comm, bool rma) : PeerTransport(0, 0), rma_(rma) {
    mpi_init_once();
    init(comm);
}

void MpiTransport::init(MPI_Comm comm) {
    int code = MPI_Comm_dup(comm, &comm_);
    if (code != MPI_SUCCESS) throw std::runtime_error("MPI_Comm_dup failed: " + mpi_error(code));
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    int r = 0, s = 0;
    MPI_Comm_rank(comm_, &r);
    MPI_Comm_size(comm_, &s);
    learn_world(static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(s));
    peers_.resize(size_);
    if (rma_) {
        code = MPI_Win_create_dynamic(MPI_INFO_NULL, comm_, &window_);
        if (code != MPI_SUCCESS)
            throw std::runtime_error("MPI_Win_create_dynamic failed: " + mpi_error(code) +
                                     " (--mpi-rma needs a one-sided component that reaches every rank: Open MPI has "
                                     "none across hosts joined by tcp only; leave out --mpi-rma)");
        MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
        directory_ = std::make_unique<RegionDirectory>(size_, directory_capacity);
        code = MPI_Win_attach(window_, directory_->table(), static_cast<MPI_Aint>(directory_->table_bytes()));
        if (code != MPI_SUCCESS) throw std::runtime_error("MPI_Win_attach of the region directory failed: " + mpi_error(code));
        MPI_Aint mine = 0;
        MPI_Get_address(directory_->table(), &mine);
        directory_at_.resize(size_);
        MPI_Allgather(&mine, 1, MPI_AINT, directory_at_.data(), 1, MPI_AINT, comm_);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
    }
    recv_buffers_.resize(control_receives);
    control_source_.resize(control_receives);
    for (std::uint32_t i = 0; i < control_receives; ++i) post_control_recv(i);
}

MpiTransport::~MpiTransport() {
    // Unmatched receives are cancelled; sends still in flight are left to MPI_Finalize. Nothing
    // collective here: a rank may leave while the others go on (or are gone).
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        if (pending_[i].op == Op::control_recv || pending_[i].op == Op::data_recv) MPI_Cancel(&requests_[i]);
        MPI_Request_free(&requests_[i]);
    }
    if (window_ != MPI_WIN_NULL) {
        MPI_Win_unlock_all(window_);
        for (const auto& r : regions_) MPI_Win_detach(window_, r.base);
        MPI_Win_detach(window_, directory_->table());
    }
}

void MpiTransport::connect(const std::vector<std::string>&, Picoseconds) {}

MemoryRegion MpiTransport::register_memory(std::byte* base, std::size_t length) {
    MemoryRegion region{base, length, regions_.size() + 1};
    if (rma_) {
        int code = MPI_Win_attach(window_, base, static_cast<MPI_Aint>(length));
        if (code != MPI_SUCCESS) throw std::runtime_error("MPI_Win_attach failed: " + mpi_error(code));
        MPI_Aint address = 0;
        MPI_Get_address(base, &address);
        region.key = directory_->add(static_cast<std::uint64_t>(address), length);
        MPI_Win_sync(window_); // peers that read the directory after hearing of the key see the entry
    }
    regions_.push_back(region);
    return region;
}

void MpiTransport::track(MPI_Request request, const Pending& info) {
    if (info.op != Op::control_recv) ++transfers_;
    if (free_requests_.empty()) {
        requests_.push_back(request);
        pending_.push_back(info);
        return;
    }
    const std::uint32_t i = free_requests_.back();
    free_requests_.pop_back();
    requests_[i] = request;
    pending_[i] = info;
}

void MpiTransport::post_control_recv(std::uint32_t slot) {
    MPI_Request request;
    int rc = MPI_Irecv(&recv_buffers_[slot], sizeof(Control), MPI_BYTE, MPI_ANY_SOURCE, control_tag, comm_, &request);
    if (rc != MPI_SUCCESS) throw std::runtime_error("mpi: MPI_Irecv of a control receive failed: " + mpi_error(rc));
    track(request, {Op::control_recv, slot});
    control_source_[slot] = -1;
    control_order_.push(slot);
}

std::uint32_t MpiTransport::take_send_slot() {
    if (free_send_.empty()) {
        free_send_.push_back(static_cast<std::uint32_t>(send_buffers_.size()));
        send_buffers_.emplace_back();
    }
    std::uint32_t slot = free_send_.back();
    free_send_.pop_back();
    return slot;
}

void MpiTransport::fail(const std::string& what, int code) { last_error_ = what + ": " + mpi_error(code); }

PostStatus MpiTransport::check_peer(std::uint32_t peer) {
    if (PostStatus s = check_post(peer); s != PostStatus::ok) return s;
    return peers_[peer].in_flight >= queue_depth ? PostStatus::no_resource : PostStatus::ok;
}

PostStatus MpiTransport::send_control(std::uint32_t peer, const Control& control) {
    std::uint32_t slot = take_send_slot();
    send_buffers_[slot] = control;
    MPI_Request request;
    int code = MPI_Isend(&send_buffers_[slot], sizeof(Control), MPI_BYTE, static_cast<int>(peer), control_tag, comm_, &request);
    if (code != MPI_SUCCESS) {
        free_send_.push_back(slot);
        fail("MPI_Isend to rank " + std::to_string(peer), code);
        return PostStatus::error;
    }
    track(request, {Op::control_send, slot, peer});
    ++peers_[peer].in_flight;
    return PostStatus::ok;
}

PostStatus MpiTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    return send_control(peer, Control{{Control::command, 0, 0, 0, 0}, 0, command});
}

PostStatus MpiTransport::resolve(std::uint32_t peer, std::uint64_t key, std::uint64_t offset, std::size_t length, MPI_Aint& target) {
    RegionEntry entry;
    switch (directory_->find(peer, key, offset, length, entry)) {
    case RegionDirectory::Lookup::found: target = static_cast<MPI_Aint>(entry.base + offset); return PostStatus::ok;
    case RegionDirectory::Lookup::wait: return PostStatus::no_resource;
    case RegionDirectory::Lookup::refused: last_error_ = directory_->why(); return PostStatus::error;
    case RegionDirectory::Lookup::fetch: break;
    }
    // Read the peer's table; the post is retried once it is here.
    const int bytes = static_cast<int>(directory_->table_bytes());
    MPI_Request request;
    int code = MPI_Rget(directory_->fetch_buffer(peer), bytes, MPI_BYTE, static_cast<int>(peer), directory_at_[peer], bytes, MPI_BYTE,
                        window_, &request);
    if (code != MPI_SUCCESS) {
        directory_->fetch_failed(peer);
        fail("MPI_Rget of rank " + std::to_string(peer) + "'s region directory", code);
        return PostStatus::error;
    }
    track(request, {Op::directory_get, 0, peer});
    return PostStatus::no_resource;
}

PostStatus MpiTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    const int target = static_cast<int>(peer);
    Peer& p = peers_[peer];
    if (rma_) {
        // Put now; a flush in poll() makes every put of the batch visible, then each gets its
        // notice: the target never sees a notice before the data.
        MPI_Aint at = 0;
        if (PostStatus s = resolve(peer, w.remote_key, w.remote_offset, w.length, at); s != PostStatus::ok) return s;
        int code = MPI_Put(w.local.base + w.local_offset, static_cast<int>(w.length), MPI_BYTE, target, at, static_cast<int>(w.length),
                           MPI_BYTE, window_);
        if (code != MPI_SUCCESS) {
            fail("MPI_Put to rank " + std::to_string(peer), code);
            return PostStatus::error;
        }
        if (p.unflushed.empty()) unflushed_peers_.push_back(peer);
        p.unflushed.push_back({{Control::write_notice, w.imm, w.remote_key, w.remote_offset, w.length}, w.cookie});
        ++p.in_flight;
        return PostStatus::ok;
    }
    const int tag = first_data_tag + static_cast<int>(p.writes++ % data_tags);
    if (PostStatus s = send_control(peer, Control{{Control::write_header, w.imm, w.remote_key, w.remote_offset, w.length}, tag, {}});
        s != PostStatus::ok)
        return s;
    MPI_Request request;
    int code = MPI_Isend(w.local.base + w.local_offset, static_cast<int>(w.length), MPI_BYTE, target, tag, comm_, &request);
    if (code != MPI_SUCCESS) {
        fail("MPI_Isend of " + std::to_string(w.length) + " B to rank " + std::to_string(peer), code);
        return PostStatus::error;
    }
    track(request, {Op::data_send, 0, peer, w.imm, w.remote_offset, w.length, w.cookie});
    ++p.in_flight;
    return PostStatus::ok;
}

void MpiTransport::emit(const Completion& c, std::span<Completion> out, std::size_t& n) {
    if (n < out.size())
        out[n++] = c;
    else
        ready_.push(c);
}

void MpiTransport::flush_puts(std::span<Completion> out, std::size_t& n) {
    // One flush for every put since the last poll (MPI has no non-blocking flush).
    int code = MPI_Win_flush_all(window_);
    for (std::uint32_t peer : unflushed_peers_) {
        Peer& p = peers_[peer];
        for (const Put& put : p.unflushed) {
            --p.in_flight;
            if (code != MPI_SUCCESS) {
                lose(peer, "MPI_Win_flush_all failed: " + mpi_error(code));
                break;
            }
            if (send_control(peer, Control{put.notice, 0, {}}) != PostStatus::ok) {
                lose(peer, "MPI_Isend of a write notice failed: " + last_error_);
                break;
            }
            Completion c;
            c.peer = peer;
            c.kind = Completion::Kind::write_done;
            c.cookie = put.cookie;
            emit(c, out, n);
        }
        p.unflushed.clear();
    }
    unflushed_peers_.clear();
}

std::size_t MpiTransport::poll(std::span<Completion> out) {
    std::size_t n = hand_out(ready_, out, 0);
    if (!unflushed_peers_.empty()) flush_puts(out, n);
    if (requests_.empty()) return n;
    int count = 0;
    done_indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int code = MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done_indices_.data(), statuses_.data());
    if (code != MPI_SUCCESS || count == MPI_UNDEFINED) return n;
    // Copy what finished first: handling it posts new requests into the freed slots.
    finished_.clear();
    for (int k = 0; k < count; ++k) {
        const auto i = static_cast<std::uint32_t>(done_indices_[static_cast<std::size_t>(k)]);
        finished_.push_back({pending_[i], statuses_[static_cast<std::size_t>(k)].MPI_SOURCE});
        if (pending_[i].op != Op::control_recv) --transfers_;
        free_requests_.push_back(i);
    }
    for (const auto& [p, source] : finished_) {
        Completion c;
        switch (p.op) {
        case Op::control_send:
            free_send_.push_back(p.slot);
            --peers_[p.peer].in_flight;
            continue;
        case Op::directory_get: directory_->fetched(p.peer); continue;
        case Op::data_send:
            --peers_[p.peer].in_flight;
            c.kind = Completion::Kind::write_done;
            c.peer = p.peer;
            c.cookie = p.cookie;
            break;
        case Op::data_recv: c = write_arrived(p.peer, p.imm, p.offset, p.length); break;
        case Op::control_recv: control_source_[p.slot] = source; continue;
        }
        emit(c, out, n);
    }
    // Control packets in the order their receives were posted, which is the order MPI matched
    // them: Testsome reports by request index, and indices are re-used in any order.
    while (!control_order_.empty() && control_source_[control_order_.front()] >= 0) {
        const std::uint32_t slot = control_order_.front();
        control_order_.pop();
        handle_control(slot, control_source_[slot], out, n);
    }
    return n;
}

void MpiTransport::handle_control(std::uint32_t slot, int source, std::span<Completion> out, std::size_t& n) {
    const Control copy = recv_buffers_[slot];
    Completion c;
    c.peer = static_cast<std::uint32_t>(source);
    post_control_recv(slot); // keep the receive posted before acting on the packet
    const WriteHeader& h = copy.head;
    if (h.word == Control::command) {
        c.kind = Completion::Kind::message;
        c.command = copy.payload;
    } else if (h.word == Control::write_notice) { // a put that has landed
        c = write_arrived(c.peer, h.imm, h.offset, h.length);
    } else if (const WriteTarget target = write_target(regions_, h.key, h.offset, h.length); !target.at) {
        return lose(c.peer, "it sent " + target.why);
    } else { // a write header: its data lands at region `key` + offset
        MPI_Request request;
        int rc = MPI_Irecv(target.at, static_cast<int>(h.length), MPI_BYTE, source, copy.data_tag, comm_, &request);
        if (rc == MPI_SUCCESS) {
            track(request, {Op::data_recv, 0, c.peer, h.imm, h.offset, h.length, 0});
            return;
        }
        return lose(c.peer, "MPI_Irecv of a write's data failed: " + mpi_error(rc));
    }
    emit(c, out, n);
}

} // namespace evb
