// The secret a run's processes share. Every connection between them proves it (keyed_handshake.hpp)
// by an HMAC-SHA256 over the other side's fresh nonce; the key itself never travels.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace evb {

using Digest = std::array<std::uint8_t, 32>;
using Nonce = std::array<std::uint8_t, 32>;

class RunKey {
public:
    static constexpr std::size_t min_length = 32;
    static constexpr std::size_t max_length = 4096;

    // A fresh random key (the local launcher makes one per run), and that key as its ranks see it.
    static RunKey random();
    static RunKey made_by_launcher(const RunKey& key);
    // A key the user gave (EVBENCH_RUN_KEY, --run-key-file): at least min_length characters,
    // else ConfigError naming `source`.
    static RunKey given(std::string text, const std::string& source);
    // The launcher's job id hashed: it keeps concurrent jobs apart, but anyone who knows the id
    // knows the key.
    static RunKey from_job(const std::string& job_id);

    Digest mac(std::span<const std::uint8_t> message) const;
    bool secret() const { return secret_; }
    // For the header: "from EVBENCH_RUN_KEY", "derived from the job id 'x' (no secret: ...)".
    const std::string& origin() const { return origin_; }
    // The key's text, for the local launcher to hand to its ranks (EVBENCH_RUN_KEY).
    const std::string& text() const { return key_; }

private:
    RunKey(std::string key, std::string origin, bool secret) : key_(std::move(key)), origin_(std::move(origin)), secret_(secret) {}
    std::string key_;
    std::string origin_;
    bool secret_ = true;
};

Nonce fresh_nonce();
// Compares in time independent of where the digests differ.
bool same_digest(const Digest& a, const Digest& b);

} // namespace evb
