// Rank 0's control service over TCP: every rank connects at start and proves the run key
// (keyed_handshake.hpp), the data transports' addresses are all-gathered through it, and during
// the run it carries the typed messages of control_message.hpp. Rank 0 listens only on the
// address the endpoint names. poll() is event-driven (one epoll_wait, then reads only from links
// that have data), so an idle link costs rank 0 nothing however many ranks there are.
#pragma once
#include "control/control_message.hpp"
#include "core/run_key.hpp"
#include "core/time.hpp"
#include "control/world.hpp"

#include <sys/socket.h>

#include <optional>
#include <string>
#include <vector>

namespace evb {

// How long the ranks have to find each other; a port another run holds is waited for as long.
inline constexpr Picoseconds bootstrap_setup_time = Picoseconds::from_seconds(30);
// The bootstrap port's queue of connections not yet accepted: as deep as the kernel allows
// (net.core.somaxconn), so that a flood of strangers does not make the kernel drop a rank's
// connection attempt, which it would retry only a second later.
inline constexpr int bootstrap_backlog = SOMAXCONN;
// How long one connection may take to prove the run key before it is dropped.
inline constexpr Picoseconds bootstrap_proof_time = Picoseconds::from_seconds(10);

class Bootstrap {
public:
    // Rank 0 listens (on inherited_fd if >= 0), the others connect; all within `timeout`.
    // Throws std::runtime_error with a clear message if a rank does not show up.
    Bootstrap(const World& world, const std::string& endpoint, int inherited_fd, const RunKey& key, Picoseconds timeout);
    ~Bootstrap();
    Bootstrap(const Bootstrap&) = delete;
    Bootstrap& operator=(const Bootstrap&) = delete;

    // Every rank's string, in rank order; checks every rank runs the same configuration.
    std::vector<std::string> allgather(const std::string& mine, const std::string& fingerprint);
    void barrier();

    struct Incoming {
        std::uint32_t from;
        ControlMessage message; // link_lost, {error}, when the link closed or sent a malformed frame
    };
    // Non-blocking: messages that arrived since the last call. One epoll_wait when nothing arrived.
    std::vector<Incoming> poll();
    void send_to_root(ControlType type, const nlohmann::json& body = nlohmann::json::object());
    void broadcast(ControlType type, const nlohmann::json& body = nlohmann::json::object()); // rank 0 only
    std::uint32_t rank() const { return world_.rank; }
    std::uint32_t size() const { return world_.size; }
    // "rank 3 (10.0.0.5:40122)": how a line names a peer.
    std::string peer_name(std::uint32_t from) const;

private:
    struct Link {
        int fd = -1;
        std::string in;
        bool alive = false;
        std::string address;
    };
    void send(Link& link, ControlType type, const nlohmann::json& body);
    ControlMessage receive_blocking(std::uint32_t from, ControlType expected);
    // Reads what a readable link holds; returns why it closed, or "" while it lives.
    std::string drain(Link& link);
    void watch_links();
    void accept_ranks(int listen_fd, const std::string& endpoint, const RunKey& key, Picoseconds timeout);
    void join_root(const std::string& endpoint, const RunKey& key, Picoseconds timeout);

    World world_;
    Picoseconds timeout_;
    std::vector<Link> links_; // rank 0: one per rank; others: links_[0] is rank 0
    int epoll_fd_ = -1;
    std::vector<std::uint32_t> buffered_; // links whose input holds bytes read by receive_blocking
};

} // namespace evb
