// Text from outside (a peer's message, a file's line, a flag's value) on its way into an error
// line: control bytes escaped, and cut to a length a terminal shows in a line or two.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace evb {

constexpr std::size_t echoed_text_limit = 300;
// A whole error line, which may hold an echo and the words around it.
constexpr std::size_t error_line_limit = 600;

// At most `limit` bytes (of more than 40): `text`, or its start cut at a character boundary and
// "... (N bytes in all)".
std::string cut_text(std::string_view text, std::size_t limit);
// cut_text of `text` with every control byte and invalid UTF-8 byte written as \xNN.
std::string printable_text(std::string_view text, std::size_t limit = echoed_text_limit);

} // namespace evb
