#include "core/run_key.hpp"

#include "core/config_error.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace evb {
namespace {

void random_bytes(std::uint8_t* out, std::size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1)
        throw std::runtime_error("run key: the system's random source failed (OpenSSL RAND_bytes)");
}

std::string hex(std::span<const std::uint8_t> bytes) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (std::uint8_t b : bytes) {
        s.push_back(digits[b >> 4]);
        s.push_back(digits[b & 15]);
    }
    return s;
}

} // namespace

RunKey RunKey::random() {
    std::array<std::uint8_t, 32> bytes{};
    random_bytes(bytes.data(), bytes.size());
    return RunKey(hex(bytes), "made by the local launcher", true);
}

RunKey RunKey::made_by_launcher(const RunKey& key) { return RunKey(key.key_, "made by the local launcher", true); }

RunKey RunKey::given(std::string text, const std::string& source) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (text.size() < min_length)
        throw ConfigError(source + ": the run key has " + std::to_string(text.size()) + " characters; give at least " +
                          std::to_string(min_length) + " (for example the output of 'openssl rand -hex 32')");
    if (text.size() > max_length) throw ConfigError(source + ": the run key has more than " + std::to_string(max_length) + " characters");
    return RunKey(std::move(text), "from " + source, true);
}

RunKey RunKey::from_job(const std::string& job_id) {
    const std::string label = "evbench run key of job " + job_id;
    Digest d{};
    unsigned int n = 0;
    EVP_Digest(label.data(), label.size(), d.data(), &n, EVP_sha256(), nullptr);
    return RunKey(hex(d),
                  "derived from the launcher's job id '" + job_id +
                      "' (keeps concurrent jobs apart, but is no secret: set EVBENCH_RUN_KEY or give --run-key-file)",
                  false);
}

Digest RunKey::mac(std::span<const std::uint8_t> message) const {
    Digest d{};
    unsigned int n = 0;
    if (!HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()), message.data(), message.size(), d.data(), &n) || n != d.size())
        throw std::runtime_error("run key: HMAC-SHA256 failed (OpenSSL)");
    return d;
}

Nonce fresh_nonce() {
    Nonce n{};
    random_bytes(n.data(), n.size());
    return n;
}

bool same_digest(const Digest& a, const Digest& b) { return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0; }

} // namespace evb
