#include "drivers/ofi/ofi_transport.hpp"

#include "drivers/transport/address_text.hpp"
#include "drivers/transport/hand_out.hpp"
#include "core/machine_info.hpp"
#include "drivers/ofi/shm_region_name.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace evb {
namespace {

constexpr auto api_version = FI_VERSION(1, 9);

// Remote CQ data of a message: its kind in the top bits, the sender's rank below.
constexpr std::uint64_t kind_command = 1, kind_notice = 2, kind_heartbeat = 3;
std::uint64_t message_data(std::uint64_t kind, std::uint32_t rank) { return kind << 30 | rank; }

std::string fi_text(ssize_t code) { return fi_strerror(static_cast<int>(code < 0 ? -code : code)); }

// What the driver asks of a provider: reliable datagrams, messages and one-sided writes with
// remote CQ data, sends ordered among themselves and after writes, memory registration modes it
// can follow (a virtual-address mode or offsets; keys it chooses).
fi_info* hints_for(const OfiOptions& o) {
    fi_info* h = fi_allocinfo();
    h->caps = FI_MSG | FI_RMA | FI_WRITE | FI_REMOTE_WRITE | FI_READ | FI_REMOTE_READ;
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_SAW;
    h->rx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_SAW;
    std::string provider = o.provider;
    if (provider.empty())
        if (const char* env = std::getenv("FI_PROVIDER")) provider = env;
    if (!provider.empty()) h->fabric_attr->prov_name = strdup(provider.c_str());
    return h; // no domain name: some providers (ofi_rxm) ignore it; find_provider picks the domain
}

// Beyond the hints: room for the rank in remote CQ data, and commands sent inline.
bool fits(const fi_info* i) { return i->domain_attr->cq_data_size >= 4 && i->tx_attr->inject_size >= command_bytes; }

// The first provider that fits, or why none does.
fi_info* find_provider(const OfiOptions& o, std::string& why) {
    fi_info* hints = hints_for(o);
    fi_info* list = nullptr;
    int rc = fi_getinfo(api_version, nullptr, nullptr, 0, hints, &list);
    const std::string asked = hints->fabric_attr->prov_name ? std::string(" '") + hints->fabric_attr->prov_name + "'" : "";
    fi_freeinfo(hints);
    if (rc != 0 || !list) {
        why = "no libfabric provider" + asked +
            " offers reliable datagrams with RMA, remote CQ data and send-after-write order here (fi_info lists the providers)";
        return nullptr;
    }
    std::vector<std::string> domains; // of the providers that fit, when --ofi-domain names none of them
    for (fi_info* i = list; i; i = i->next) {
        if (!o.domain.empty() && fits(i) && o.domain != i->domain_attr->name) {
            if (std::ranges::find(domains, i->domain_attr->name) == domains.end()) domains.push_back(i->domain_attr->name);
            continue;
        }
        if (fits(i)) {
            fi_info* chosen = fi_dupinfo(i);
            fi_freeinfo(list);
            return chosen;
        }
    }
    if (!domains.empty()) {
        why = fmt::format("libfabric provider {} has no domain '{}' here (it has {})", list->fabric_attr->prov_name, o.domain,
                          fmt::join(domains, ", "));
        fi_freeinfo(list);
        return nullptr;
    }
    why = std::string("libfabric provider ") + list->fabric_attr->prov_name + " carries " +
        std::to_string(list->domain_attr->cq_data_size) + " B of remote CQ data and injects " + std::to_string(list->tx_attr->inject_size) +
        " B; the ofi driver needs 4 and " + std::to_string(command_bytes);
    fi_freeinfo(list);
    return nullptr;
}

// Providers size their queues for FI_UNIVERSE_SIZE peers; libfabric's default, 256, makes ofi_rxm
// ask soft-RoCE for more completion-queue entries than it has. While the driver sets up, unless
// the user set it, it is the run's ranks (at least 64); the launcher's children do not inherit it.
class UniverseSize {
public:
    explicit UniverseSize(std::uint32_t ranks) : set_(std::getenv("FI_UNIVERSE_SIZE") == nullptr) {
        if (set_) setenv("FI_UNIVERSE_SIZE", std::to_string(std::max<std::uint32_t>(ranks, 64)).c_str(), 1);
    }
    ~UniverseSize() {
        if (set_) unsetenv("FI_UNIVERSE_SIZE");
    }
    UniverseSize(const UniverseSize&) = delete;
    UniverseSize& operator=(const UniverseSize&) = delete;

private:
    bool set_;
};

void check(int rc, const char* what) {
    if (rc != 0) throw std::runtime_error(std::string("ofi: ") + what + ": " + fi_text(rc));
}

} // namespace

std::optional<std::string> OfiTransport::provider_problem(const OfiOptions& options) {
    UniverseSize universe(0);
    std::string why;
    fi_info* info = find_provider(options, why);
    if (!info) return why;
    fi_freeinfo(info);
    return std::nullopt;
}

std::vector<std::string> OfiTransport::usable_providers() {
    UniverseSize universe(0);
    fi_info* hints = hints_for(OfiOptions{});
    free(hints->fabric_attr->prov_name); // every provider, whatever FI_PROVIDER says
    hints->fabric_attr->prov_name = nullptr;
    fi_info* list = nullptr;
    int rc = fi_getinfo(api_version, nullptr, nullptr, 0, hints, &list);
    fi_freeinfo(hints);
    std::vector<std::string> out;
    for (fi_info* i = rc == 0 ? list : nullptr; i; i = i->next) {
        if (!fits(i)) continue;
        std::string name = std::string(i->fabric_attr->prov_name) + " on " + i->domain_attr->name;
        if (std::ranges::find(out, name) == out.end()) out.push_back(name);
    }
    if (list) fi_freeinfo(list);
    return out;
}

OfiTransport::OfiTransport(std::uint32_t rank, std::uint32_t size, const OfiOptions& options, Picoseconds heartbeat)
    : PeerTransport(rank, size), peers_(size), directory_(size, table_capacity), table_reads_(size) {
    use_heartbeat(heartbeat);
    UniverseSize universe(size);
    std::string why;
    info_ = find_provider(options, why);
    if (!info_) throw std::runtime_error(why);
    virtual_addresses_ = (info_->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    local_registration_ = (info_->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
    max_message_ = std::min<std::size_t>(info_->ep_attr->max_msg_size, std::size_t{1} << 30);
    // Each write holds two entries of the endpoint's transmit queue (it and its notice) until it
    // is delivered: every peer gets an equal share, so one that stops reading blocks only itself.
    per_peer_limit_ =
        static_cast<std::uint32_t>(std::clamp<std::size_t>(info_->tx_attr->size / (2 * std::size_t{size}), 1, writes_per_peer));
    check(fi_fabric(info_->fabric_attr, &fabric_, nullptr), "fi_fabric");
    check(fi_domain(fabric_, info_, &domain_, nullptr), "fi_domain");
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.size = std::size_t{size} * writes_per_peer + receives + 64;
    // A wait object, so that an idle rank can sleep (--poll); a provider without one spins (its
    // transport line says so).
    cq_attr.wait_obj = FI_WAIT_FD;
    if (fi_cq_open(domain_, &cq_attr, &cq_, nullptr) != 0) {
        cq_attr.wait_obj = FI_WAIT_NONE;
        check(fi_cq_open(domain_, &cq_attr, &cq_, nullptr), "fi_cq_open");
    } else if (fi_control(&cq_->fid, FI_GETWAIT, &wait_fd_) != 0) {
        wait_fd_ = -1;
    }
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    av_attr.count = size;
    check(fi_av_open(domain_, &av_attr, &av_, nullptr), "fi_av_open");
    check(fi_endpoint(domain_, info_, &ep_, nullptr), "fi_endpoint");
    if (std::strcmp(info_->fabric_attr->prov_name, "shm") == 0) {
        // shm's own region names come back with the pid: see shm_region_name.hpp.
        (void)remove_shm_regions_of_dead_processes();
        std::string region = unique_shm_region_name();
        check(fi_setname(&ep_->fid, region.data(), region.size() + 1), "fi_setname (shm region)");
    }
    check(fi_ep_bind(ep_, &av_->fid, 0), "fi_ep_bind (address vector)");
    check(fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind (completion queue)");
    check(fi_enable(ep_), "fi_enable");
    // Contexts live at fixed addresses for as long as their operations.
    receive_buffers_.resize(receives);
    receive_ops_.resize(receives);
    if (local_registration_)
        receive_mr_ = reg(receive_buffers_.data(), receive_buffers_.size() * sizeof(CommandBytes), FI_RECV, 0, "receive buffers");
    for (std::uint32_t s = 0; s < receives; ++s) post_receive(s);
    table_mr_ = reg(directory_.table(), directory_.table_bytes(), FI_REMOTE_READ, table_key, "region table");
    const std::size_t writes = std::size_t{size} * writes_per_peer;
    write_ops_.resize(writes);
    write_slots_.resize(writes);
    for (std::size_t w = writes; w-- > 0;) free_writes_.push_back(static_cast<std::uint32_t>(w));
}

fid_mr* OfiTransport::reg(void* base, std::size_t length, std::uint64_t access, std::uint64_t key, const char* what) {
    fid_mr* mr = nullptr;
    int rc = fi_mr_reg(domain_, base, length, access, 0, key, 0, &mr, nullptr);
    if (rc != 0) throw std::runtime_error(std::string("ofi: fi_mr_reg (") + what + "): " + fi_text(rc));
    if (info_->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        check(fi_mr_bind(mr, &ep_->fid, 0), "fi_mr_bind");
        check(fi_mr_enable(mr), "fi_mr_enable");
    }
    return mr;
}

OfiTransport::~OfiTransport() {
    // Let what is in flight finish (or fail) first: ofi_rxm over verbs crashes in fi_close when
    // an endpoint still has operations outstanding. Bounded: a peer that is gone never answers.
    // Then, with heartbeats stopped, progress a little longer: ofi_rxm over verbs also crashes
    // in fi_close while a connection to or from a peer is still being set up.
    if (ep_ && !addresses_.empty()) {
        const auto start = std::chrono::steady_clock::now();
        std::array<Completion, 64> scratch;
        while (!nothing_in_flight() && std::chrono::steady_clock::now() < start + std::chrono::seconds(2)) (void)poll(scratch);
        closing_ = true;
        const auto settled = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
        while (std::chrono::steady_clock::now() < settled) (void)poll(scratch);
    }
    if (ep_) fi_close(&ep_->fid);
    for (auto* mr : mrs_) fi_close(&mr->fid);
    for (auto* mr : table_read_mrs_)
        if (mr) fi_close(&mr->fid);
    if (receive_mr_) fi_close(&receive_mr_->fid);
    if (table_mr_) fi_close(&table_mr_->fid);
    if (av_) fi_close(&av_->fid);
    if (cq_) fi_close(&cq_->fid);
    if (domain_) fi_close(&domain_->fid);
    if (fabric_) fi_close(&fabric_->fid);
    if (info_) fi_freeinfo(info_);
}

NicName OfiTransport::nic() const { return nic_named(info_->domain_attr->name ? info_->domain_attr->name : ""); }

std::string OfiTransport::describe() const {
    const std::uint32_t v = fi_version();
    return "libfabric " + std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v)) + ", provider " + info_->fabric_attr->prov_name +
        ", domain " + info_->domain_attr->name + (wait_fd_ < 0 ? ", no wait object: a rank with nothing in flight naps" : "");
}

std::string OfiTransport::local_address() {
    std::vector<unsigned char> name(256);
    std::size_t length = name.size();
    int rc = fi_getname(&ep_->fid, name.data(), &length);
    if (rc == -FI_ETOOSMALL) {
        name.resize(length);
        rc = fi_getname(&ep_->fid, name.data(), &length);
    }
    check(rc, "fi_getname");
    const std::string text = address_to_text(name.data(), length);
    const std::uint64_t table = virtual_addresses_ ? reinterpret_cast<std::uintptr_t>(directory_.table()) : 0;
    return text + "@" + std::to_string(table) + "@" + std::to_string(fi_mr_key(table_mr_));
}

void OfiTransport::connect(const std::vector<std::string>& addresses, Picoseconds) {
    if (addresses.size() != size_) throw std::runtime_error("ofi: expected " + std::to_string(size_) + " addresses");
    // One at a time, in rank order: with FI_AV_TABLE rank r becomes fi_addr_t r. (Names of one
    // provider may differ in length: shm's are strings.)
    addresses_.assign(size_, FI_ADDR_NOTAVAIL);
    table_at_.assign(size_, 0);
    table_keys_.assign(size_, 0);
    table_read_mrs_.assign(size_, nullptr);
    for (std::uint32_t r = 0; r < size_; ++r) {
        // name@table address@table key
        const auto key_at = addresses[r].rfind('@');
        const auto at = key_at == std::string::npos || key_at == 0 ? std::string::npos : addresses[r].rfind('@', key_at - 1);
        if (at == std::string::npos)
            throw std::runtime_error("ofi: rank " + std::to_string(r) + "'s address '" + addresses[r] + "' has no region table");
        try {
            table_at_[r] = std::stoull(addresses[r].substr(at + 1, key_at - at - 1));
            table_keys_[r] = std::stoull(addresses[r].substr(key_at + 1));
        } catch (const std::exception&) {
            throw std::runtime_error("ofi: rank " + std::to_string(r) + "'s address '" + addresses[r] + "' has no region table");
        }
        const std::string a = addresses[r].substr(0, at);
        const std::vector<unsigned char> name = address_from_text(a);
        if (name.empty()) throw std::runtime_error("ofi: rank " + std::to_string(r) + "'s address '" + a + "' is not a libfabric address");
        if (fi_av_insert(av_, name.data(), 1, &addresses_[r], 0, nullptr) != 1)
            throw std::runtime_error("ofi: fi_av_insert refused rank " + std::to_string(r) + "'s address (another provider's?)");
    }
    start_heartbeat();
}

void OfiTransport::beat_unless_closing() {
    if (closing_) return;
    // A reliable-datagram endpoint says nothing of a peer that went away while idle.
    const std::uint64_t beat = 0;
    keep_alive(
        [&](std::uint32_t peer) {
            if (!lost(peer)) // a full queue skips one beat
                (void)fi_injectdata(ep_, &beat, sizeof beat, message_data(kind_heartbeat, rank_), addresses_[peer]);
        },
        [&](std::uint32_t peer, const std::string& why) { lose(peer, why); });
}

MemoryRegion OfiTransport::register_memory(std::byte* base, std::size_t length) {
    const auto address = reinterpret_cast<std::uintptr_t>(base);
    // Peers name the region by its place in the table (key); the fabric by the key it returns
    // (its own choice with FI_MR_PROV_KEY), which the table holds.
    const std::uint64_t key = mrs_.size() + 1;
    fid_mr* mr = reg(base, length, FI_WRITE | FI_REMOTE_WRITE, key, "region");
    mrs_.push_back(mr);
    directory_.add(virtual_addresses_ ? address : 0, length, fi_mr_key(mr));
    MemoryRegion region{base, length, key};
    regions_.push_back(region);
    return region;
}

void OfiTransport::post_receive(std::uint32_t slot) {
    Operation& op = receive_ops_[slot];
    op.kind = Operation::Kind::receive;
    op.index = slot;
    for (;;) {
        ssize_t rc = fi_recv(ep_, &receive_buffers_[slot], command_bytes, receive_mr_ ? fi_mr_desc(receive_mr_) : nullptr, FI_ADDR_UNSPEC,
                             &op.context);
        if (rc == 0) return;
        if (rc != -FI_EAGAIN) throw std::runtime_error("ofi: fi_recv: " + fi_text(rc));
        fi_cq_data_entry none[1];
        (void)fi_cq_read(cq_, none, 0); // progress, then try again
    }
}

PostStatus OfiTransport::check_peer(std::uint32_t peer) { return check_post(peer); }

PostStatus OfiTransport::inject(std::uint32_t peer, const void* bytes, std::size_t length, std::uint64_t kind) {
    ssize_t rc = fi_injectdata(ep_, bytes, length, message_data(kind, rank_), addresses_[peer]);
    if (rc == 0) return PostStatus::ok;
    if (rc == -FI_EAGAIN) return PostStatus::no_resource;
    last_error_ = "fi_injectdata to rank " + std::to_string(peer) + ": " + fi_text(rc);
    return PostStatus::error;
}

PostStatus OfiTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return send_to_self(command);
    if (!peers_[peer].notices.empty()) return PostStatus::no_resource; // a notice waits: commands stay behind it
    return inject(peer, command.data(), command.size(), kind_command);
}

PostStatus OfiTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (PostStatus s = check_peer(peer); s != PostStatus::ok) return s;
    if (peer == rank_) return write_to_self(regions_, w);
    Peer& p = peers_[peer];
    const std::size_t local_index = w.local.key;
    if (local_index == 0 || local_index > mrs_.size()) {
        last_error_ = "write from an unregistered buffer";
        return PostStatus::error;
    }
    if (p.writes_in_flight >= per_peer_limit_ || free_writes_.empty()) return PostStatus::no_resource;
    RegionEntry target;
    switch (directory_.find(peer, w.remote_key, w.remote_offset, w.length, target)) {
    case RegionDirectory::Lookup::found: break;
    case RegionDirectory::Lookup::wait: return PostStatus::no_resource;
    case RegionDirectory::Lookup::refused: last_error_ = directory_.why(); return PostStatus::error;
    case RegionDirectory::Lookup::fetch: return read_table(peer);
    }
    const std::uint32_t slot = free_writes_.back();
    Operation& op = write_ops_[slot];
    op.kind = Operation::Kind::write;
    op.index = slot;
    write_slots_[slot] = {peer, w.cookie};
    // Complete when the data is at the target: a peer that does not progress then holds at most
    // its share of the endpoint's queue, never all of it.
    iovec iov{w.local.base + w.local_offset, w.length};
    void* desc = fi_mr_desc(mrs_[local_index - 1]);
    fi_rma_iov rma{target.base + w.remote_offset, w.length, target.fabric_key};
    fi_msg_rma msg{};
    msg.msg_iov = &iov;
    msg.desc = &desc;
    msg.iov_count = 1;
    msg.addr = addresses_[peer];
    msg.rma_iov = &rma;
    msg.rma_iov_count = 1;
    msg.context = &op.context;
    ssize_t rc = fi_writemsg(ep_, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc == -FI_EAGAIN) return PostStatus::no_resource;
    if (rc != 0) {
        last_error_ = "fi_write to rank " + std::to_string(peer) + ": " + fi_text(rc);
        return PostStatus::error;
    }
    free_writes_.pop_back();
    ++p.writes_in_flight;
    // Send after write: the target sees the notice once the data is in place. If the queue is
    // full the notice waits here, and so does everything after it to that peer (poll retries).
    p.notices.push(WriteNotice{w.remote_offset, w.length, w.imm, 0});
    send_notices(peer);
    return PostStatus::ok;
}

PostStatus OfiTransport::read_table(std::uint32_t peer) {
    // The post is retried (no_resource) once the peer's table is here.
    Operation& op = table_reads_[peer];
    op.kind = Operation::Kind::table_read;
    op.index = peer;
    void* desc = nullptr;
    if (local_registration_) { // the buffer a read lands in is registered for that read
        table_read_mrs_[peer] = reg(directory_.fetch_buffer(peer), directory_.table_bytes(), FI_READ, 0, "region table copy");
        desc = fi_mr_desc(table_read_mrs_[peer]);
    }
    ssize_t rc = fi_read(ep_, directory_.fetch_buffer(peer), directory_.table_bytes(), desc, addresses_[peer], table_at_[peer],
                         table_keys_[peer], &op.context);
    ++reads_in_flight_;
    if (rc == 0) return PostStatus::no_resource;
    release_table_read(peer);
    directory_.fetch_failed(peer);
    if (rc == -FI_EAGAIN) return PostStatus::no_resource;
    last_error_ = "fi_read of rank " + std::to_string(peer) + "'s region table: " + fi_text(rc);
    return PostStatus::error;
}

void OfiTransport::release_table_read(std::uint32_t peer) {
    if (reads_in_flight_ > 0) --reads_in_flight_;
    if (table_read_mrs_[peer]) fi_close(&table_read_mrs_[peer]->fid);
    table_read_mrs_[peer] = nullptr;
}

void OfiTransport::send_notices(std::uint32_t peer) {
    Peer& p = peers_[peer];
    while (!p.notices.empty()) {
        PostStatus s = inject(peer, &p.notices.front(), sizeof(WriteNotice), kind_notice);
        if (s == PostStatus::no_resource) {
            if (!p.notices_waiting) peers_with_notices_.push_back(peer);
            p.notices_waiting = true;
            return;
        }
        if (s == PostStatus::error) lose(peer, last_error_); // the write itself still completes or fails
        p.notices.pop();
    }
    p.notices_waiting = false;
}

void OfiTransport::emit(const Completion& c, std::span<Completion> out, std::size_t& n) {
    if (n < out.size())
        out[n++] = c;
    else
        ready_.push(c);
}

void OfiTransport::read_error() {
    fi_cq_err_entry err{};
    if (fi_cq_readerr(cq_, &err, 0) != 1) return;
    const auto* op = static_cast<const Operation*>(err.op_context);
    std::string text = fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0);
    if (text.empty()) text = fi_text(err.err);
    if (op && op->kind == Operation::Kind::write) {
        const WriteSlot& w = write_slots_[op->index];
        --peers_[w.peer].writes_in_flight;
        free_writes_.push_back(op->index);
        lose(w.peer,
             err.err == FI_EINVAL || err.err == FI_EACCES || err.err == FI_EKEYREJECTED
                 ? "a write outside its registered regions was refused (" + text + ")"
                 : "write failed: " + text);
    } else if (op && op->kind == Operation::Kind::table_read) {
        release_table_read(op->index);
        directory_.fetch_failed(op->index);
        lose(op->index, "reading its region table failed: " + text);
    } else if (op && op->kind == Operation::Kind::receive) {
        if (err.err != FI_ECANCELED) post_receive(op->index);
    }
}

Transport::WaitPlan OfiTransport::prepare_wait(std::vector<int>& fds) {
    if (!ready_.empty() || !peers_with_notices_.empty()) return WaitPlan::poll_again;
    // No wait object: the executor naps (Reactor::idle) while the rank only waits for its peers,
    // and yields while its own writes need our calls to progress.
    if (wait_fd_ < 0) return nothing_in_flight() ? WaitPlan::sleep : WaitPlan::yield;
    fid* cq = &cq_->fid;
    if (fi_trywait(fabric_, &cq, 1) != FI_SUCCESS) return WaitPlan::poll_again; // -FI_EAGAIN: completions are there
    fds.push_back(wait_fd_);
    return WaitPlan::sleep;
}

std::size_t OfiTransport::poll(std::span<Completion> out) {
    beat_unless_closing();
    if (!peers_with_notices_.empty()) {
        std::vector<std::uint32_t> waiting;
        waiting.swap(peers_with_notices_);
        for (std::uint32_t peer : waiting) {
            peers_[peer].notices_waiting = false;
            send_notices(peer);
        }
    }
    std::size_t n = hand_out(ready_, out, 0);
    fi_cq_data_entry entries[32];
    ssize_t got = fi_cq_read(cq_, entries, 32);
    if (got == -FI_EAVAIL) read_error();
    for (ssize_t i = 0; i < got; ++i) {
        const fi_cq_data_entry& e = entries[i];
        const auto* op = static_cast<const Operation*>(e.op_context);
        Completion c;
        if (op->kind == Operation::Kind::table_read) {
            release_table_read(op->index);
            directory_.fetched(op->index);
            continue;
        }
        if (op->kind == Operation::Kind::write) {
            const WriteSlot w = write_slots_[op->index];
            --peers_[w.peer].writes_in_flight;
            free_writes_.push_back(op->index);
            c.kind = Completion::Kind::write_done;
            c.peer = w.peer;
            c.cookie = w.cookie;
            emit(c, out, n);
            continue;
        }
        const std::uint32_t slot = op->index;
        c.peer = static_cast<std::uint32_t>(e.data & 0x3FFFFFFF);
        heard_from(c.peer);
        if ((e.data >> 30) == kind_heartbeat) {
            post_receive(slot);
            continue;
        }
        if ((e.data >> 30) == kind_notice && e.len == sizeof(WriteNotice)) {
            WriteNotice notice;
            std::memcpy(&notice, receive_buffers_[slot].data(), sizeof notice);
            c = write_arrived(c.peer, notice.imm, notice.offset, notice.length);
        } else {
            c.kind = Completion::Kind::message;
            c.command = receive_buffers_[slot];
        }
        post_receive(slot);
        emit(c, out, n);
    }
    n = hand_out(ready_, out, n); // what this poll queued (a lost peer)
    return n;
}

} // namespace evb
