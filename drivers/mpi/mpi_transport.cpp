#include "mpi_transport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace evb {
namespace {

// Each write's data has its own tag (per sender and target, cycling): the receiver posts the
// receive for it when the header arrives, in whatever order it handles headers.
constexpr int control_tag = 1, first_data_tag = 2, data_tags = 30000;
constexpr std::uint32_t control_receives = 16;   // pre-posted, from any source (more wait in MPI as unexpected messages)

std::string mpi_error(int code) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}

} // namespace

MpiTransport::MpiTransport(std::uint32_t rank, std::uint32_t size, bool rma) : rank_(rank), size_(size), rma_(rma) {
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised) {
        int provided = 0;
        MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
        if (provided < MPI_THREAD_FUNNELED) throw std::runtime_error("MPI provides no MPI_THREAD_FUNNELED support");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int r = 0, s = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    if (static_cast<std::uint32_t>(r) != rank || static_cast<std::uint32_t>(s) != size)
        throw std::runtime_error(fmt::format("MPI says rank {} of {}, the launcher rank {} of {}: start evbench with mpirun or srun --mpi=pmix",
                                             r, s, rank, size));
    if (rma_) {
        int code = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &window_);
        if (code != MPI_SUCCESS) throw std::runtime_error("MPI_Win_create_dynamic failed: " + mpi_error(code));
        MPI_Win_set_errhandler(window_, MPI_ERRORS_RETURN);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
    }
    writes_to_.assign(size_, 0);
    recv_buffers_.resize(control_receives);
    for (std::uint32_t i = 0; i < control_receives; ++i) post_control_recv(i);
}

MpiTransport::~MpiTransport() {
    // Unmatched receives are cancelled; sends still in flight are left to MPI_Finalize.
    for (std::size_t i = 0; i < requests_.size(); ++i) {
        if (requests_[i] == MPI_REQUEST_NULL) continue;
        if (pending_[i].op == Op::control_recv || pending_[i].op == Op::data_recv) MPI_Cancel(&requests_[i]);
        MPI_Request_free(&requests_[i]);
    }
    if (window_ != MPI_WIN_NULL) {
        MPI_Win_unlock_all(window_);
        for (const auto& r : regions_) MPI_Win_detach(window_, r.base);
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
}

void MpiTransport::connect(const std::vector<std::string>&, Picoseconds) {}

MemoryRegion MpiTransport::register_memory(std::byte* base, std::size_t length) {
    MemoryRegion region{base, length, regions_.size() + 1};
    if (rma_) {
        int code = MPI_Win_attach(window_, base, static_cast<MPI_Aint>(length));
        if (code != MPI_SUCCESS) throw std::runtime_error("MPI_Win_attach failed: " + mpi_error(code));
        MPI_Aint address = 0;
        MPI_Get_address(base, &address);
        region.key = static_cast<std::uint64_t>(address);   // peers put at this address + offset
    }
    regions_.push_back(region);
    return region;
}

void MpiTransport::track(MPI_Request request, const Pending& info) {
    // Reuse a finished slot so the arrays stay as large as the most ever in flight.
    for (std::size_t i = 0; i < requests_.size(); ++i)
        if (requests_[i] == MPI_REQUEST_NULL) {
            requests_[i] = request;
            pending_[i] = info;
            return;
        }
    requests_.push_back(request);
    pending_.push_back(info);
}

namespace {
std::string mpi_error_text(int code) {
    char text[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(code, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
}
} // namespace

void MpiTransport::post_control_recv(std::uint32_t slot) {
    MPI_Request request;
    int rc = MPI_Irecv(&recv_buffers_[slot], sizeof(Control), MPI_BYTE, MPI_ANY_SOURCE, control_tag, MPI_COMM_WORLD, &request);
    if (rc != MPI_SUCCESS) throw std::runtime_error("mpi: MPI_Irecv of a control receive failed: " + mpi_error_text(rc));
    track(request, {Op::control_recv, slot});
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

PostStatus MpiTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (peer >= size_) {
        last_error_ = no_such_rank(peer, size_);
        return PostStatus::error;
    }
    std::uint32_t slot = take_send_slot();
    Control& c = send_buffers_[slot];
    c = Control{Control::command, 0, 0, 0, 0, 0, command};
    MPI_Request request;
    int code = MPI_Isend(&c, sizeof c, MPI_BYTE, static_cast<int>(peer), control_tag, MPI_COMM_WORLD, &request);
    if (code != MPI_SUCCESS) {
        free_send_.push_back(slot);
        fail("MPI_Isend to rank " + std::to_string(peer), code);
        return PostStatus::error;
    }
    track(request, {Op::control_send, slot, peer});
    return PostStatus::ok;
}

PostStatus MpiTransport::post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset, std::uint64_t remote_key,
                                    std::uint64_t remote_offset, std::size_t length, std::uint32_t imm, std::uint64_t cookie) {
    if (peer >= size_) {
        last_error_ = no_such_rank(peer, size_);
        return PostStatus::error;
    }
    const int target = static_cast<int>(peer);
    std::uint32_t slot = take_send_slot();
    Control& c = send_buffers_[slot];
    if (rma_) {
        // Put, then wait for remote completion, then tell the target: it never sees the notice
        // before the data.
        int code = MPI_Put(local.base + local_offset, static_cast<int>(length), MPI_BYTE, target,
                           static_cast<MPI_Aint>(remote_key + remote_offset), static_cast<int>(length), MPI_BYTE, window_);
        if (code == MPI_SUCCESS) code = MPI_Win_flush(target, window_);
        if (code != MPI_SUCCESS) {
            free_send_.push_back(slot);
            fail("MPI_Put to rank " + std::to_string(peer), code);
            return PostStatus::error;
        }
        c = Control{Control::write_notice, imm, remote_key, remote_offset, length, 0, {}};
        Completion done;
        done.kind = Completion::Kind::write_done;
        done.peer = peer;
        done.cookie = cookie;
        ready_.push(done);
    } else {
        c = Control{Control::write_header, imm, remote_key, remote_offset, length,
                    first_data_tag + static_cast<int>(writes_to_[peer]++ % data_tags), {}};
    }
    MPI_Request request;
    int code = MPI_Isend(&c, sizeof c, MPI_BYTE, target, control_tag, MPI_COMM_WORLD, &request);
    if (code != MPI_SUCCESS) {
        fail("MPI_Isend to rank " + std::to_string(peer), code);
        return PostStatus::error;
    }
    track(request, {Op::control_send, slot, peer});
    if (!rma_) {
        code = MPI_Isend(local.base + local_offset, static_cast<int>(length), MPI_BYTE, target, c.data_tag, MPI_COMM_WORLD, &request);
        if (code != MPI_SUCCESS) {
            fail("MPI_Isend of " + std::to_string(length) + " B to rank " + std::to_string(peer), code);
            return PostStatus::error;
        }
        track(request, {Op::data_send, 0, peer, imm, remote_offset, length, cookie});
    }
    return PostStatus::ok;
}

std::size_t MpiTransport::poll(std::span<Completion> out) {
    std::size_t n = 0;
    while (n < out.size() && !ready_.empty()) {
        out[n++] = ready_.front();
        ready_.pop();
    }
    if (n == out.size() || requests_.empty()) return n;
    int count = 0;
    done_indices_.resize(requests_.size());
    statuses_.resize(requests_.size());
    int code = MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &count, done_indices_.data(), statuses_.data());
    if (code != MPI_SUCCESS || count == MPI_UNDEFINED) return n;
    // Copy what finished first: handling it posts new requests into the freed slots.
    finished_.clear();
    for (int k = 0; k < count; ++k) {
        const auto i = static_cast<std::size_t>(done_indices_[static_cast<std::size_t>(k)]);
        finished_.push_back({pending_[i], statuses_[static_cast<std::size_t>(k)].MPI_SOURCE});
    }
    for (const auto& [p, source] : finished_) {
        Completion c;
        switch (p.op) {
        case Op::control_send: free_send_.push_back(p.slot); continue;
        case Op::data_send:
            c.kind = Completion::Kind::write_done;
            c.peer = p.peer;
            c.cookie = p.cookie;
            break;
        case Op::data_recv:
            c.kind = Completion::Kind::write_arrived;
            c.peer = p.peer;
            c.imm = p.imm;
            c.offset = p.offset;
            c.length = p.length;
            break;
        case Op::control_recv: {
            const Control copy = recv_buffers_[p.slot];
            c.peer = static_cast<std::uint32_t>(source);
            post_control_recv(p.slot);   // keep the receive posted before acting on the packet
            if (copy.kind == Control::command) {
                c.kind = Completion::Kind::message;
                c.command = copy.payload;
                break;
            }
            // A write: its data lands at region `key` + offset.
            if (rma_ || copy.kind == Control::write_notice) {
                c.kind = Completion::Kind::write_arrived;
                c.imm = copy.imm;
                c.offset = copy.offset;
                c.length = copy.length;
                break;
            }
            if (copy.key == 0 || copy.key > regions_.size() || copy.offset + copy.length > regions_[copy.key - 1].length) {
                last_error_ = "a peer wrote outside the registered regions";
                c.kind = Completion::Kind::peer_lost;
                c.error = "write outside the registered regions";
                break;
            }
            MPI_Request request;
            int rc = MPI_Irecv(regions_[copy.key - 1].base + copy.offset, static_cast<int>(copy.length), MPI_BYTE, source, copy.data_tag,
                               MPI_COMM_WORLD, &request);
            if (rc != MPI_SUCCESS) {
                last_error_ = "MPI_Irecv of a write's data failed: " + mpi_error_text(rc);
                c.kind = Completion::Kind::peer_lost;
                c.error = "MPI_Irecv of a write's data failed";
                break;
            }
            track(request, {Op::data_recv, 0, c.peer, copy.imm, copy.offset, copy.length, 0});
            continue;
        }
        }
        if (n < out.size()) out[n++] = c;
        else ready_.push(c);
    }
    return n;
}

} // namespace evb
