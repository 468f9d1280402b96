#include "control/bootstrap.hpp"

#include "core/keyed_handshake.hpp"
#include "core/log.hpp"
#include "core/socket_util.hpp"

#include <fmt/format.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace evb {
namespace {
constexpr const char* purpose = "bootstrap";
}

Bootstrap::Bootstrap(const World& world, const std::string& endpoint, int inherited_fd, const RunKey& key, Picoseconds timeout)
    : world_(world), timeout_(timeout), links_(world.rank == 0 ? world.size : 1) {
    if (world.rank == 0) {
        int lfd = inherited_fd;
        if (lfd < 0) {
            auto [host, port] = split_host_port(endpoint);
            if (!world.single_host && resolves_to_loopback(host))
                throw std::runtime_error("bootstrap: " + endpoint +
                                         " is a loopback address here, which the other hosts cannot reach: give --bootstrap "
                                         "with an address of rank 0's host on the network the ranks share");
            try {
                lfd = listen_on_when_free(host, port, bootstrap_backlog, timeout, [&](const std::string& why) {
                    logger(purpose).warn("{}: waiting up to {:g} s for it (another run?)", why, timeout.seconds());
                });
            } catch (const std::exception& e) {
                throw std::runtime_error(std::string(e.what()) +
                                         " (another job or program holds it: give --bootstrap HOST:PORT or set EVBENCH_BOOTSTRAP)");
            }
        }
        accept_ranks(lfd, endpoint, key, timeout);
    } else {
        join_root(endpoint, key, timeout);
    }
    watch_links();
}

void Bootstrap::accept_ranks(int lfd, const std::string& endpoint, const RunKey& key, Picoseconds timeout) {
    const ClosesFd closer{lfd};
    KeyedAcceptor acceptor(lfd, key, purpose, bootstrap_proof_time, [&](std::uint32_t who) -> std::string {
        if (who == 0 || who >= world_.size)
            return fmt::format("it proved the run key but claims rank {}, not one of 1..{}", who, world_.size - 1);
        if (links_[who].alive) return fmt::format("it claims rank {}, which joined already", who);
        return "";
    });
    const Picoseconds deadline = steady_now() + timeout;
    for (std::uint32_t joined = 1; joined < world_.size; ++joined) {
        auto a = acceptor.next(deadline);
        if (!a) {
            std::string missing;
            for (std::uint32_t r = 1; r < world_.size && missing.size() < 80; ++r)
                if (!links_[r].alive) missing += fmt::format("{}{}", missing.empty() ? "" : ", ", r);
            throw std::runtime_error(fmt::format(
                "bootstrap: only {} of {} ranks reached {} within {:g} s (missing: {}){}", joined, world_.size, endpoint, timeout.seconds(),
                missing, acceptor.dropped() ? fmt::format("; {} connections were dropped", acceptor.dropped()) : ""));
        }
        links_[a->id] = {a->fd, {}, true, a->address};
    }
}

void Bootstrap::join_root(const std::string& endpoint, const RunKey& key, Picoseconds timeout) {
    auto [host, port] = split_host_port(endpoint);
    const Picoseconds deadline = steady_now() + timeout;
    // A rank 0 that does not prove our key is another run's on the same port: its run ends, ours
    // listens there, so we try again until the set-up time is up.
    std::string refused; // what a rank 0 of another run said, if one answered
    for (;;) {
        int fd = -1;
        try {
            fd = connect_to(host, port, std::max(Picoseconds(0), deadline - steady_now()));
        } catch (const std::exception& e) {
            throw std::runtime_error(
                std::string("bootstrap: rank 0 unreachable: ") + e.what() +
                (refused.empty() ? "" : " (before, " + endpoint + " answered, but is no rank 0 of this run: " + refused + ")"));
        }
        const std::string why = prove_run_key(fd, key, purpose, world_.rank, std::min(bootstrap_proof_time, timeout));
        if (why.empty()) {
            links_[0] = {fd, {}, true, endpoint};
            return;
        }
        close(fd);
        if (steady_now() >= deadline) throw std::runtime_error("bootstrap: " + endpoint + " is no rank 0 of this run: " + why);
        if (refused.empty())
            logger(purpose).warn("{} is no rank 0 of this run ({}): trying again for up to {:g} s", endpoint, why, timeout.seconds());
        refused = why;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

void Bootstrap::watch_links() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::runtime_error("bootstrap: epoll_create1: " + errno_text());
    for (std::uint32_t i = 0; i < links_.size(); ++i) {
        if (links_[i].fd < 0) continue;
        // Control messages are small and each is due now: Nagle's algorithm held a second one
        // back until the first was acknowledged (up to a delayed ACK's 40 ms).
        set_nodelay(links_[i].fd);
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.u32 = i;
        if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, links_[i].fd, &ev) != 0) throw std::runtime_error("bootstrap: epoll_ctl: " + errno_text());
    }
}

Bootstrap::~Bootstrap() {
    for (auto& l : links_)
        if (l.fd >= 0) close(l.fd);
    if (epoll_fd_ >= 0) close(epoll_fd_);
}

std::string Bootstrap::peer_name(std::uint32_t from) const {
    const std::string& address = links_.at(world_.rank == 0 ? from : 0).address;
    return fmt::format("rank {} ({})", from, address.empty() ? "this process" : address);
}

void Bootstrap::send(Link& link, ControlType type, const nlohmann::json& body) {
    if (!link.alive) return;
    const std::string frame = encode_control_frame({type, body});
    if (!send_all(link.fd, frame.data(), frame.size())) link.alive = false;
}

ControlMessage Bootstrap::receive_blocking(std::uint32_t from, ControlType expected) {
    Link& link = links_[world_.rank == 0 ? from : 0];
    const Picoseconds deadline = steady_now() + timeout_;
    for (;;) {
        ControlFrameRead e = take_control_frame(link.in);
        if (!e.malformed.empty()) throw std::runtime_error("bootstrap: " + peer_name(from) + ": " + e.malformed);
        if (e.message) {
            if (e.message->type == ControlType::abort)
                throw std::runtime_error(
                    fmt::format("bootstrap: {} gave up: {}", peer_name(from), e.message->body.at("error").get<std::string>()));
            if (e.message->type != expected)
                throw std::runtime_error(fmt::format("bootstrap: {} sent a {} message where its {} was due", peer_name(from),
                                                     to_string(e.message->type), to_string(expected)));
            if (!link.in.empty()) buffered_.push_back(static_cast<std::uint32_t>(&link - links_.data())); // the next frame came along
            return std::move(*e.message);
        }
        char buf[4096];
        if (!recv_all(link.fd, buf, 1, deadline - steady_now()))
            throw std::runtime_error("bootstrap: " + peer_name(from) + " went away or sent nothing for " +
                                     fmt::format("{:g} s", timeout_.seconds()));
        link.in.push_back(buf[0]);
        ssize_t n = recv(link.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) link.in.append(buf, static_cast<std::size_t>(n));
    }
}

std::vector<std::string> Bootstrap::allgather(const std::string& mine, const std::string& fingerprint) {
    std::vector<std::string> all(world_.size);
    if (world_.rank == 0) {
        all[0] = mine;
        for (std::uint32_t r = 1; r < world_.size; ++r) {
            ControlMessage hello = receive_blocking(r, ControlType::hello);
            if (hello.body.at("fingerprint").get<std::string>() != fingerprint)
                throw std::runtime_error("bootstrap: " + peer_name(r) +
                                         " runs a different configuration than rank 0 (same flags on every rank?)");
            all[r] = hello.body.at("value").get<std::string>();
        }
        broadcast(ControlType::table, {{"values", all}});
    } else {
        send(links_[0], ControlType::hello, {{"value", mine}, {"fingerprint", fingerprint}});
        ControlMessage table = receive_blocking(0, ControlType::table);
        all = table.body.at("values").get<std::vector<std::string>>();
        if (all.size() != world_.size)
            throw std::runtime_error(
                fmt::format("bootstrap: {}'s table has {} entries for {} ranks", peer_name(0), all.size(), world_.size));
    }
    return all;
}

void Bootstrap::barrier() {
    if (world_.rank == 0) {
        for (std::uint32_t r = 1; r < world_.size; ++r) receive_blocking(r, ControlType::ready);
        broadcast(ControlType::go);
    } else {
        send(links_[0], ControlType::ready, nlohmann::json::object());
        receive_blocking(0, ControlType::go);
    }
}

std::string Bootstrap::drain(Link& link) {
    char buf[65536];
    for (;;) {
        // Frames are taken out as they complete: what one link holds stays below a frame's bound.
        if (link.in.size() > std::size_t{max_frame_bytes} + 4 + sizeof buf) return "";
        ssize_t n = recv(link.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            link.in.append(buf, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return "";
        return n == 0 ? "connection closed" : errno_text();
    }
}

std::vector<Bootstrap::Incoming> Bootstrap::poll() {
    std::vector<Incoming> out;
    auto take = [&](std::uint32_t i, std::string lost) {
        Link& link = links_[i];
        const std::uint32_t from = world_.rank == 0 ? i : 0;
        for (;;) { // frames that arrived before a close still count
            ControlFrameRead e = take_control_frame(link.in);
            if (e.message) {
                out.push_back({from, std::move(*e.message)});
                continue;
            }
            if (!e.malformed.empty()) lost = e.malformed + " (its link was closed)";
            break;
        }
        if (!lost.empty()) {
            link.alive = false;
            link.in.clear();
            epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, link.fd, nullptr);
            shutdown(link.fd, SHUT_RDWR);
            out.push_back({from, {ControlType::link_lost, {{"error", lost}}}});
        }
    };
    for (std::uint32_t i : buffered_)
        if (links_[i].alive) take(i, "");
    buffered_.clear();
    epoll_event events[64];
    for (;;) {
        int n = epoll_wait(epoll_fd_, events, 64, 0);
        if (n < 0 && errno == EINTR) continue;
        for (int k = 0; k < n; ++k) {
            const std::uint32_t i = events[k].data.u32;
            if (links_[i].alive) {
                take(i, drain(links_[i]));
            } else {
                epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, links_[i].fd, nullptr); // a send found it broken
            }
        }
        if (n < 64) break; // a full batch: more links may be ready
    }
    return out;
}

void Bootstrap::send_to_root(ControlType type, const nlohmann::json& body) { send(links_[0], type, body); }

void Bootstrap::broadcast(ControlType type, const nlohmann::json& body) {
    for (std::uint32_t r = 1; r < links_.size(); ++r) send(links_[r], type, body);
}

} // namespace evb
