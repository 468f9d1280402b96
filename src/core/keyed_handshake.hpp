// Every connection between a run's processes (the bootstrap's, tcp's) opens by proving the run
// key both ways, so a stranger or a process of another run is dropped before it sends a byte
// that counts:
//   acceptor  -> connector  magic, the acceptor's nonce                              (40 B)
//   connector -> acceptor   its id, its nonce, HMAC(key, purpose, "connector", nonces, id)  (68 B)
//   acceptor  -> connector  HMAC(key, purpose, "acceptor", nonces, id)               (32 B)
// The purpose ("bootstrap", "tcp") keeps a proof for one kind of connection from opening another.
#pragma once
#include "core/run_key.hpp"
#include "core/time.hpp"

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace evb {

// The connector's side, on a connected blocking socket: "" once both proofs passed, else why not.
std::string prove_run_key(int fd, const RunKey& key, const std::string& purpose, std::uint32_t id, Picoseconds timeout);

// The acceptor's side: takes connections from a listening socket and admits those that prove the
// key within `per_connection` and whose id `judge` accepts (it returns "" or why not). Many
// connections are answered at once: a silent or slow one delays no other, and a flood of silent
// ones holds no slot a newer connection needs. Every connection
// dropped is one warning naming its address and why (the first `shown_drops`, then a count).
class KeyedAcceptor {
public:
    using Judge = std::function<std::string(std::uint32_t id)>;
    struct Admitted {
        int fd = -1;
        std::uint32_t id = 0;
        std::string address; // the peer's "ip:port"
    };
    KeyedAcceptor(int listen_fd, const RunKey& key, std::string purpose, Picoseconds per_connection, Judge judge);
    ~KeyedAcceptor();
    KeyedAcceptor(const KeyedAcceptor&) = delete;
    KeyedAcceptor& operator=(const KeyedAcceptor&) = delete;

    // The next connection admitted, or nullopt once `deadline` (steady time) passed.
    std::optional<Admitted> next(Picoseconds deadline);
    std::size_t dropped() const { return dropped_; }

    static constexpr std::size_t max_pending = 256; // the oldest unproven one gives way to a newer one
    static constexpr std::size_t accept_batch = 32; // connections taken before the waiting ones' answers are read
    static constexpr std::size_t shown_drops = 10;

private:
    struct Pending {
        int fd = -1;
        std::string address;
        Nonce nonce{};
        Picoseconds deadline{};
        std::vector<std::uint8_t> answer;
    };
    void accept_waiting();
    // Reads what a pending connection sent; an admitted connection or nullopt (still waiting,
    // or dropped).
    std::optional<Admitted> read_answer(std::size_t i);
    void drop(std::size_t i, const std::string& why);

    int listen_fd_;
    const RunKey& key_;
    std::string purpose_;
    Picoseconds per_connection_;
    Judge judge_;
    std::vector<Pending> pending_;
    std::size_t dropped_ = 0;
};

// Where a connection's own handshake has no round trip for a challenge (rdma_cm's private data,
// at most 56 B), the connector proves the key in its one message: its id, a fresh nonce, and
// HMAC(key, purpose, "one-way", nonce, its id, the acceptor's id) of 32 B: 52 B in all. One
// message cannot stop a replay by itself: the acceptor takes each id once.
constexpr std::size_t one_way_proof_bytes = 52;
std::array<std::uint8_t, one_way_proof_bytes> one_way_proof(const RunKey& key, const std::string& purpose, std::uint32_t from,
                                                            std::uint32_t to);
// The id `bytes` proves for a connection to `to`, or nullopt when they are no such proof.
std::optional<std::uint32_t> check_one_way_proof(const RunKey& key, const std::string& purpose, std::uint32_t to,
                                                 std::span<const std::uint8_t> bytes);

} // namespace evb
