// Small POSIX socket helpers shared by the TCP transport, the bootstrap and the launcher.
// Errors throw std::runtime_error with the address and the OS error text.
#pragma once
#include "core/time.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

namespace evb {

// "host:port" -> (host, port); throws std::invalid_argument naming the text.
std::pair<std::string, int> split_host_port(const std::string& endpoint);
struct ListenError : std::runtime_error {
    ListenError(const std::string& what, int err) : std::runtime_error(what), error(err) {}
    int error; // errno of bind or listen
};
// Listening TCP socket on host:port (port 0: any); returns the fd; throws ListenError.
int listen_on(const std::string& host, int port, int backlog);
// The same, but a port another process holds (another run on the same port) is tried again
// until `timeout`; `waiting` hears the first refusal.
int listen_on_when_free(const std::string& host, int port, int backlog, Picoseconds timeout,
                        const std::function<void(const std::string&)>& waiting);
int bound_port(int fd);
// True when host resolves to 127.0.0.0/8 (Debian maps a host's own name to 127.0.1.1).
bool resolves_to_loopback(const std::string& host);
// Connects to host:port, retrying refused connections until `timeout`; blocking fd.
int connect_to(const std::string& host, int port, Picoseconds timeout);
// accept() with a timeout; returns -1 on timeout.
int accept_within(int listen_fd, Picoseconds timeout);
void set_nonblocking(int fd, bool on);
void set_nodelay(int fd);
// Marks what the socket sends with a DSCP (0..63; IPv4 or IPv6); throws naming the error.
void set_dscp(int fd, unsigned dscp);
// Blocking send/receive of exactly len bytes (MSG_NOSIGNAL); false on EOF or error.
bool send_all(int fd, const void* data, std::size_t len);
bool recv_all(int fd, void* data, std::size_t len, Picoseconds timeout);
std::string errno_text();
// "ip:port" of a connected socket's peer.
std::string peer_address(int fd);
// Closes the descriptor when the scope ends, however it ends.
struct ClosesFd {
    explicit ClosesFd(int descriptor) : fd(descriptor) {}
    ClosesFd(const ClosesFd&) = delete;
    ClosesFd& operator=(const ClosesFd&) = delete;
    ~ClosesFd();
    int fd;
};

} // namespace evb
