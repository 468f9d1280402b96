#include "core/socket_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace evb {

std::string errno_text() { return std::strerror(errno); }

ClosesFd::~ClosesFd() {
    if (fd >= 0) close(fd);
}

std::string peer_address(int fd) {
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "an unknown address";
    char ip[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &addr.sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(addr.sin_port));
}

std::pair<std::string, int> split_host_port(const std::string& endpoint) {
    auto colon = endpoint.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size())
        throw std::invalid_argument("'" + endpoint + "' is not host:port");
    std::string host = endpoint.substr(0, colon), port_text = endpoint.substr(colon + 1);
    int port = 0;
    for (char ch : port_text) {
        if (ch < '0' || ch > '9' || port > 65535) throw std::invalid_argument("'" + endpoint + "' has a bad port");
        port = port * 10 + (ch - '0');
    }
    if (port > 65535) throw std::invalid_argument("'" + endpoint + "' has a bad port");
    return {host, port};
}

namespace {
sockaddr_in resolve(const std::string& host, int port) {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
    if (rc != 0 || !res) throw std::runtime_error("cannot resolve host '" + host + "': " + gai_strerror(rc));
    sockaddr_in addr{};
    std::memcpy(&addr, res->ai_addr, sizeof addr);
    freeaddrinfo(res);
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    return addr;
}
} // namespace

int listen_on(const std::string& host, int port, int backlog) {
    sockaddr_in addr = resolve(host, port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error("socket(): " + errno_text());
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, backlog) != 0) {
        const int err = errno;
        close(fd);
        throw ListenError("cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(err), err);
    }
    return fd;
}

int listen_on_when_free(const std::string& host, int port, int backlog, Picoseconds timeout,
                        const std::function<void(const std::string&)>& waiting) {
    const Picoseconds deadline = steady_now() + timeout;
    for (bool told = false;; told = true) {
        try {
            return listen_on(host, port, backlog);
        } catch (const ListenError& e) {
            if (e.error != EADDRINUSE || port == 0 || steady_now() >= deadline) throw;
            if (!told && waiting) waiting(e.what());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

bool resolves_to_loopback(const std::string& host) { return (ntohl(resolve(host, 0).sin_addr.s_addr) >> 24) == 127; }

int bound_port(int fd) {
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    return ntohs(addr.sin_port);
}

int connect_to(const std::string& host, int port, Picoseconds timeout) {
    sockaddr_in addr = resolve(host, port);
    Picoseconds deadline = steady_now() + timeout;
    std::string last = "timed out";
    while (steady_now() < deadline) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) throw std::runtime_error("socket(): " + errno_text());
        if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
        last = errno_text();
        close(fd);
        if (errno != ECONNREFUSED && errno != ETIMEDOUT && errno != EHOSTUNREACH && errno != ENETUNREACH) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw std::runtime_error("cannot connect to " + host + ":" + std::to_string(port) + ": " + last);
}

int accept_within(int listen_fd, Picoseconds timeout) {
    pollfd p{listen_fd, POLLIN, 0};
    auto ms = static_cast<int>(std::max<std::int64_t>(0, timeout.count() / 1000'000'000));
    int rc = ::poll(&p, 1, ms);
    if (rc <= 0) return -1;
    return accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
}

void set_nonblocking(int fd, bool on) {
    int flags = fcntl(fd, F_GETFL, 0);
    fcntl(fd, F_SETFL, on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK));
}

void set_nodelay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void set_dscp(int fd, unsigned dscp) {
    if (dscp > 63) throw std::invalid_argument("a DSCP is 0..63, not " + std::to_string(dscp));
    sockaddr_storage self{};
    socklen_t len = sizeof self;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&self), &len) != 0) throw std::runtime_error("getsockname: " + errno_text());
    const int traffic_class = static_cast<int>(dscp << 2); // the ECN bits stay the kernel's
    const bool v6 = self.ss_family == AF_INET6;
    if (setsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, &traffic_class, sizeof traffic_class) != 0)
        throw std::runtime_error("setting DSCP " + std::to_string(dscp) + ": " + errno_text());
}

bool send_all(int fd, const void* data, std::size_t len) {
    const auto* p = static_cast<const char*>(data);
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            pollfd pf{fd, POLLOUT, 0};
            ::poll(&pf, 1, 100);
            continue;
        }
        if (n <= 0) return false;
        p += n;
        len -= static_cast<std::size_t>(n);
    }
    return true;
}

bool recv_all(int fd, void* data, std::size_t len, Picoseconds timeout) {
    auto* p = static_cast<char*>(data);
    Picoseconds deadline = steady_now() + timeout;
    while (len) {
        Picoseconds left = deadline - steady_now();
        if (left <= Picoseconds(0)) return false;
        pollfd pf{fd, POLLIN, 0};
        int rc = ::poll(&pf, 1, static_cast<int>(left.count() / 1000'000'000 + 1));
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) return false;
        ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return false;
        p += n;
        len -= static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace evb
