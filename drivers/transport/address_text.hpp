// A fabric's binary endpoint address (libfabric's fi_getname, UCX's worker address) as text the
// bootstrap can carry, and back.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace evb {

inline std::string address_to_text(const void* bytes, std::size_t length) {
    static const char* hex = "0123456789abcdef";
    const auto* b = static_cast<const unsigned char*>(bytes);
    std::string text;
    text.reserve(2 * length);
    for (std::size_t i = 0; i < length; ++i) {
        text += hex[b[i] >> 4];
        text += hex[b[i] & 15];
    }
    return text;
}

// The bytes of `text`; empty when it is empty or not lower-case hex of whole bytes.
inline std::vector<unsigned char> address_from_text(const std::string& text) {
    auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    std::vector<unsigned char> bytes;
    if (text.size() % 2) return bytes;
    for (std::size_t i = 0; i < text.size(); i += 2) {
        const int hi = digit(text[i]), lo = digit(text[i + 1]);
        if (hi < 0 || lo < 0) return {};
        bytes.push_back(static_cast<unsigned char>(hi << 4 | lo));
    }
    return bytes;
}

} // namespace evb
