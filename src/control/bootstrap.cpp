#include "bootstrap.hpp"

#include "socket_util.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace evb {

Bootstrap::Bootstrap(const World& world, const std::string& endpoint, int inherited_fd, Picoseconds timeout)
    : world_(world), timeout_(timeout), links_(world.rank == 0 ? world.size : 1) {
    auto [host, port] = split_host_port(endpoint);
    if (world.rank == 0) {
        int lfd = inherited_fd;
        if (lfd < 0) {
            try {
                lfd = listen_on(world.single_host ? host : "0.0.0.0", port, static_cast<int>(world.size) + 16);
            } catch (const std::exception& e) {
                throw std::runtime_error(std::string(e.what()) + " (another job or program holds it: give --bootstrap HOST:PORT or set EVBENCH_BOOTSTRAP)");
            }
        }
        Picoseconds deadline = steady_now() + timeout;
        for (std::uint32_t joined = 1; joined < world.size;) {
            int fd = accept_within(lfd, deadline - steady_now());
            if (fd < 0) {
                close(lfd);
                throw std::runtime_error("bootstrap: only " + std::to_string(joined) + " of " + std::to_string(world.size) +
                                         " ranks reached " + endpoint + " within " + std::to_string(int(timeout.seconds())) + " s");
            }
            std::uint32_t who = 0;
            if (!recv_all(fd, &who, sizeof who, timeout) || who == 0 || who >= world.size || links_[who].alive) {
                close(fd);
                continue;   // a stranger or a duplicate: ignore it
            }
            links_[who] = {fd, {}, true};
            ++joined;
        }
        close(lfd);
    } else {
        int fd = -1;
        try {
            fd = connect_to(host, port, timeout);
        } catch (const std::exception& e) {
            throw std::runtime_error(std::string("bootstrap: rank 0 unreachable: ") + e.what());
        }
        std::uint32_t me = world.rank;
        if (!send_all(fd, &me, sizeof me)) throw std::runtime_error("bootstrap: lost rank 0 during hello");
        links_[0] = {fd, {}, true};
    }
    watch_links();
}

void Bootstrap::watch_links() {
    epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_fd_ < 0) throw std::runtime_error("bootstrap: epoll_create1: " + errno_text());
    for (std::uint32_t i = 0; i < links_.size(); ++i) {
        if (links_[i].fd < 0) continue;
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

void Bootstrap::send(Link& link, const nlohmann::json& body) {
    if (!link.alive) return;
    std::string text = body.dump();
    auto len = static_cast<std::uint32_t>(text.size());
    if (!send_all(link.fd, &len, sizeof len) || !send_all(link.fd, text.data(), text.size())) link.alive = false;
}

bool Bootstrap::extract(Link& link, nlohmann::json& body) {
    if (link.in.size() < 4) return false;
    std::uint32_t len = 0;
    std::memcpy(&len, link.in.data(), 4);
    if (link.in.size() < 4 + std::size_t{len}) return false;
    body = nlohmann::json::parse(link.in.begin() + 4, link.in.begin() + 4 + len);
    link.in.erase(0, 4 + std::size_t{len});
    return true;
}

nlohmann::json Bootstrap::receive_blocking(Link& link, std::uint32_t from) {
    nlohmann::json body;
    Picoseconds deadline = steady_now() + timeout_;
    while (!extract(link, body)) {
        char buf[4096];
        if (!recv_all(link.fd, buf, 1, deadline - steady_now()))
            throw std::runtime_error("bootstrap: rank " + std::to_string(from) + " went away or timed out");
        link.in.push_back(buf[0]);
        ssize_t n = recv(link.fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) link.in.append(buf, static_cast<std::size_t>(n));
    }
    if (!link.in.empty()) buffered_.push_back(static_cast<std::uint32_t>(&link - links_.data()));   // the next frame came along
    return body;
}

std::vector<std::string> Bootstrap::allgather(const std::string& mine, const std::string& fingerprint) {
    std::vector<std::string> all(world_.size);
    if (world_.rank == 0) {
        all[0] = mine;
        for (std::uint32_t r = 1; r < world_.size; ++r) {
            auto hello = receive_blocking(links_[r], r);
            if (hello.value("fingerprint", "") != fingerprint)
                throw std::runtime_error("bootstrap: rank " + std::to_string(r) +
                                         " runs a different configuration than rank 0 (same flags on every rank?)");
            all[r] = hello.at("value").get<std::string>();
        }
        broadcast({{"type", "table"}, {"values", all}});
    } else {
        send(links_[0], {{"type", "hello"}, {"value", mine}, {"fingerprint", fingerprint}});
        auto table = receive_blocking(links_[0], 0);
        all = table.at("values").get<std::vector<std::string>>();
    }
    return all;
}

void Bootstrap::barrier() {
    if (world_.rank == 0) {
        for (std::uint32_t r = 1; r < world_.size; ++r) receive_blocking(links_[r], r);
        broadcast({{"type", "go"}});
    } else {
        send(links_[0], {{"type", "ready"}});
        receive_blocking(links_[0], 0);
    }
}

std::string Bootstrap::drain(Link& link) {
    char buf[65536];
    for (;;) {
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
    auto take = [&](std::uint32_t i, const std::string& lost) {
        Link& link = links_[i];
        const std::uint32_t from = world_.rank == 0 ? i : 0;
        nlohmann::json body;
        while (extract(link, body)) out.push_back({from, std::move(body)});   // frames that arrived before a close still count
        if (!lost.empty()) {
            link.alive = false;
            epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, link.fd, nullptr);
            out.push_back({from, {{"type", "lost"}, {"error", lost}}});
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
            if (links_[i].alive) take(i, drain(links_[i]));
            else epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, links_[i].fd, nullptr);   // a send found it broken
        }
        if (n < 64) break;   // a full batch: more links may be ready
    }
    return out;
}

void Bootstrap::send_to_root(const nlohmann::json& body) { send(links_[0], body); }

void Bootstrap::broadcast(const nlohmann::json& body) {
    for (std::uint32_t r = 1; r < links_.size(); ++r) send(links_[r], body);
}

} // namespace evb
