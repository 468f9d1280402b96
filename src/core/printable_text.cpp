#include "core/printable_text.hpp"

#include <fmt/format.h>

namespace evb {
namespace {

// Length of the valid UTF-8 sequence at text[i] (1..4), or 0 when the byte starts none.
std::size_t utf8_length(std::string_view text, std::size_t i) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > text.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((static_cast<unsigned char>(text[i + k]) >> 6) != 0x2) return 0;
    return n;
}

} // namespace

std::string cut_text(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return std::string(text);
    std::size_t end = limit > 40 ? limit - 40 : limit; // room for the note, so the whole fits in limit
    while (end > 0 && (static_cast<unsigned char>(text[end]) >> 6) == 0x2) --end; // not inside a character
    return fmt::format("{}... ({} bytes in all)", text.substr(0, end), text.size());
}

std::string printable_text(std::string_view text, std::size_t limit) {
    std::string out;
    std::size_t i = 0;
    for (; i < text.size() && out.size() < limit;) {
        const auto b = static_cast<unsigned char>(text[i]);
        const std::size_t n = utf8_length(text, i);
        if (n == 0 || b < 0x20 || b == 0x7F) {
            out += fmt::format("\\x{:02x}", b);
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    if (i < text.size()) out += fmt::format("... ({} bytes in all)", text.size());
    return out;
}

} // namespace evb
