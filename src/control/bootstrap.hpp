// Rank 0's control service over TCP: every rank connects at start, the data transports'
// addresses are all-gathered through it, and during the run it carries progress, "done",
// "finish", abort and the final statistics as length-prefixed JSON frames. poll() is
// event-driven (one epoll_wait, then reads only from links that have data), so an idle link
// costs rank 0 nothing however many ranks there are.
#pragma once
#include "time.hpp"
#include "world.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace evb {

class Bootstrap {
public:
    // Rank 0 listens (on inherited_fd if >= 0), the others connect; all within `timeout`.
    // Throws std::runtime_error with a clear message if a rank does not show up.
    Bootstrap(const World& world, const std::string& endpoint, int inherited_fd, Picoseconds timeout);
    ~Bootstrap();
    Bootstrap(const Bootstrap&) = delete;
    Bootstrap& operator=(const Bootstrap&) = delete;

    // Every rank's string, in rank order; checks every rank runs the same configuration.
    std::vector<std::string> allgather(const std::string& mine, const std::string& fingerprint);
    void barrier();

    struct Incoming {
        std::uint32_t from;
        nlohmann::json body;   // {"type": "lost", "error": ...} when a connection broke
    };
    // Non-blocking: frames that arrived since the last call. One epoll_wait when nothing arrived.
    std::vector<Incoming> poll();
    void send_to_root(const nlohmann::json& body);
    void broadcast(const nlohmann::json& body);   // rank 0 only
    std::uint32_t rank() const { return world_.rank; }
    std::uint32_t size() const { return world_.size; }

private:
    struct Link {
        int fd = -1;
        std::string in;
        bool alive = false;
    };
    void send(Link& link, const nlohmann::json& body);
    nlohmann::json receive_blocking(Link& link, std::uint32_t from);
    bool extract(Link& link, nlohmann::json& body);
    // Reads what a readable link holds; returns why it closed, or "" while it lives.
    std::string drain(Link& link);
    void watch_links();

    World world_;
    Picoseconds timeout_;
    std::vector<Link> links_;   // rank 0: one per rank; others: links_[0] is rank 0
    int epoll_fd_ = -1;
    std::vector<std::uint32_t> buffered_;   // links whose input holds bytes read by receive_blocking
};

} // namespace evb
