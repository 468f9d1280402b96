#include "core/keyed_handshake.hpp"

#include "core/log.hpp"
#include "core/socket_util.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace evb {
namespace {

constexpr char magic[8] = {'E', 'V', 'B', 'K', 'E', 'Y', '0', '1'};
constexpr std::size_t challenge_size = sizeof magic + sizeof(Nonce);
constexpr std::size_t answer_size = 4 + sizeof(Nonce) + sizeof(Digest);

// The id on the wire and in the MAC: 4 bytes, little-endian.
void put_id(std::uint8_t* out, std::uint32_t id) {
    for (int b = 0; b < 4; ++b) out[b] = static_cast<std::uint8_t>(id >> (8 * b));
}
std::uint32_t get_id(const std::uint8_t* in) {
    std::uint32_t id = 0;
    for (int b = 0; b < 4; ++b) id |= std::uint32_t{in[b]} << (8 * b);
    return id;
}

Digest proof(const RunKey& key, const std::string& purpose, const char* role, const Nonce& acceptor, const Nonce& connector,
             std::uint32_t id) {
    std::vector<std::uint8_t> m(purpose.begin(), purpose.end());
    m.push_back(0);
    m.insert(m.end(), role, role + std::strlen(role));
    m.push_back(0);
    m.insert(m.end(), acceptor.begin(), acceptor.end());
    m.insert(m.end(), connector.begin(), connector.end());
    m.resize(m.size() + 4);
    put_id(m.data() + m.size() - 4, id);
    return key.mac(m);
}

constexpr std::size_t one_way_nonce_bytes = 16;

Digest one_way_mac(const RunKey& key, const std::string& purpose, const std::uint8_t* nonce, std::uint32_t from, std::uint32_t to) {
    std::vector<std::uint8_t> m(purpose.begin(), purpose.end());
    const char role[] = "one-way";
    m.push_back(0);
    m.insert(m.end(), role, role + sizeof role); // with its 0
    m.insert(m.end(), nonce, nonce + one_way_nonce_bytes);
    m.resize(m.size() + 8);
    put_id(m.data() + m.size() - 8, from);
    put_id(m.data() + m.size() - 4, to);
    return key.mac(m);
}

std::string seconds_text(Picoseconds t) { return std::to_string(static_cast<int>(t.seconds() + 0.5)) + " s"; }

} // namespace

std::string prove_run_key(int fd, const RunKey& key, const std::string& purpose, std::uint32_t id, Picoseconds timeout) {
    std::uint8_t challenge[challenge_size];
    if (!recv_all(fd, challenge, sizeof challenge, timeout))
        return "it closed the connection or sent no challenge within " + seconds_text(timeout) + " (is it an evbench run?)";
    if (std::memcmp(challenge, magic, sizeof magic) != 0) return "it does not speak evbench's handshake (another program on that port?)";
    Nonce theirs{}, mine = fresh_nonce();
    std::memcpy(theirs.data(), challenge + sizeof magic, theirs.size());
    const Digest mac = proof(key, purpose, "connector", theirs, mine, id);
    std::uint8_t answer[answer_size];
    put_id(answer, id);
    std::memcpy(answer + 4, mine.data(), mine.size());
    std::memcpy(answer + 4 + mine.size(), mac.data(), mac.size());
    if (!send_all(fd, answer, sizeof answer)) return "it closed the connection during the handshake";
    Digest confirm{};
    if (!recv_all(fd, confirm.data(), confirm.size(), timeout))
        return "it refused our proof of the run key (it belongs to another run, or runs with another key)";
    if (!same_digest(confirm, proof(key, purpose, "acceptor", theirs, mine, id)))
        return "it could not prove the run key (it belongs to another run, or runs with another key)";
    return "";
}

KeyedAcceptor::KeyedAcceptor(int listen_fd, const RunKey& key, std::string purpose, Picoseconds per_connection, Judge judge)
    : listen_fd_(listen_fd), key_(key), purpose_(std::move(purpose)), per_connection_(per_connection), judge_(std::move(judge)) {
    set_nonblocking(listen_fd_, true);
}

KeyedAcceptor::~KeyedAcceptor() {
    while (!pending_.empty()) drop(pending_.size() - 1, "it had not proved the run key when the acceptor was done");
    if (dropped_ > shown_drops) logger(purpose_).warn("{} connections dropped in all", dropped_);
}

void KeyedAcceptor::drop(std::size_t i, const std::string& why) {
    close(pending_[i].fd);
    ++dropped_;
    if (dropped_ <= shown_drops) logger(purpose_).warn("dropped a connection from {}: {}", pending_[i].address, why);
    if (dropped_ == shown_drops + 1) logger(purpose_).warn("further dropped connections are counted, not shown");
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
}

void KeyedAcceptor::accept_waiting() {
    // A batch at a time, then the answers: a rank's answer is read before a flood behind it
    // can push it out.
    for (std::size_t taken = 0; taken < accept_batch; ++taken) {
        int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return; // EAGAIN: none waits; anything else shows again on the next poll
        // Full: the connection that has waited longest without a proof makes room. A process of
        // the run answers its challenge at once, so the slots a stranger holds by saying nothing
        // are the ones given up, and a rank is never refused for want of one.
        if (pending_.size() >= max_pending)
            drop(0, "it had not proved the run key when " + std::to_string(max_pending) + " newer connections waited for a slot");
        Pending p{fd, peer_address(fd), fresh_nonce(), steady_now() + per_connection_, {}};
        pending_.push_back(std::move(p));
        std::uint8_t challenge[challenge_size];
        std::memcpy(challenge, magic, sizeof magic);
        std::memcpy(challenge + sizeof magic, pending_.back().nonce.data(), sizeof(Nonce));
        if (send(fd, challenge, sizeof challenge, MSG_NOSIGNAL | MSG_DONTWAIT) != static_cast<ssize_t>(sizeof challenge))
            drop(pending_.size() - 1, "the challenge could not be sent: " + errno_text());
    }
}

std::optional<KeyedAcceptor::Admitted> KeyedAcceptor::read_answer(std::size_t i) {
    Pending& p = pending_[i];
    std::uint8_t buf[answer_size];
    ssize_t n = recv(p.fd, buf, answer_size - p.answer.size(), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return std::nullopt;
    if (n <= 0) {
        drop(i, n == 0 ? "it closed the connection before proving the run key" : errno_text());
        return std::nullopt;
    }
    p.answer.insert(p.answer.end(), buf, buf + n);
    if (p.answer.size() < answer_size) return std::nullopt;
    const std::uint32_t id = get_id(p.answer.data());
    Nonce theirs{};
    Digest mac{};
    std::memcpy(theirs.data(), p.answer.data() + 4, theirs.size());
    std::memcpy(mac.data(), p.answer.data() + 4 + theirs.size(), mac.size());
    if (!same_digest(mac, proof(key_, purpose_, "connector", p.nonce, theirs, id))) {
        drop(i, "it did not prove the run key (a process of another run, or a stranger)");
        return std::nullopt;
    }
    if (std::string why = judge_(id); !why.empty()) {
        drop(i, why);
        return std::nullopt;
    }
    const Digest confirm = proof(key_, purpose_, "acceptor", p.nonce, theirs, id);
    if (!send_all(p.fd, confirm.data(), confirm.size())) {
        drop(i, "it closed the connection during the handshake");
        return std::nullopt;
    }
    set_nonblocking(p.fd, false);
    Admitted a{p.fd, id, p.address};
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    return a;
}

std::optional<KeyedAcceptor::Admitted> KeyedAcceptor::next(Picoseconds deadline) {
    for (;;) {
        const Picoseconds now = steady_now();
        for (std::size_t i = pending_.size(); i-- > 0;)
            if (now >= pending_[i].deadline) drop(i, "it sent no proof of the run key within " + seconds_text(per_connection_));
        if (now >= deadline) return std::nullopt;
        Picoseconds wake = deadline;
        std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
        for (const auto& p : pending_) {
            fds.push_back({p.fd, POLLIN, 0});
            wake = std::min(wake, p.deadline);
        }
        const int ms = static_cast<int>(std::max<std::int64_t>(0, (wake - now).count() / 1'000'000'000) + 1);
        int rc = ::poll(fds.data(), fds.size(), ms);
        if (rc < 0 && errno != EINTR) throw std::runtime_error(purpose_ + ": poll: " + errno_text());
        if (rc <= 0) continue;
        std::vector<int> ready;
        for (std::size_t k = 1; k < fds.size(); ++k)
            if (fds[k].revents) ready.push_back(fds[k].fd);
        for (int fd : ready) {
            auto it = std::find_if(pending_.begin(), pending_.end(), [fd](const Pending& p) { return p.fd == fd; });
            if (it == pending_.end()) continue;
            if (auto a = read_answer(static_cast<std::size_t>(it - pending_.begin()))) return a;
        }
        if (fds[0].revents) accept_waiting();
    }
}

std::array<std::uint8_t, one_way_proof_bytes> one_way_proof(const RunKey& key, const std::string& purpose, std::uint32_t from,
                                                            std::uint32_t to) {
    static_assert(4 + one_way_nonce_bytes + sizeof(Digest) == one_way_proof_bytes);
    std::array<std::uint8_t, one_way_proof_bytes> out{};
    put_id(out.data(), from);
    const Nonce nonce = fresh_nonce();
    std::copy_n(nonce.begin(), one_way_nonce_bytes, out.begin() + 4);
    const Digest mac = one_way_mac(key, purpose, out.data() + 4, from, to);
    std::copy(mac.begin(), mac.end(), out.begin() + 4 + one_way_nonce_bytes);
    return out;
}

std::optional<std::uint32_t> check_one_way_proof(const RunKey& key, const std::string& purpose, std::uint32_t to,
                                                 std::span<const std::uint8_t> bytes) {
    if (bytes.size() < one_way_proof_bytes) return std::nullopt;
    const std::uint32_t from = get_id(bytes.data());
    Digest given{};
    std::copy_n(bytes.begin() + 4 + one_way_nonce_bytes, given.size(), given.begin());
    if (!same_digest(given, one_way_mac(key, purpose, bytes.data() + 4, from, to))) return std::nullopt;
    return from;
}

} // namespace evb
