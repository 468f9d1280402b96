// Every file evbench writes on a user's behalf (--json, --write-topology, ...): checked before the
// work starts, so that a path it cannot write is one line and not a lost run, and written whole
// or not at all (a temporary file beside it, renamed over it: an interrupted run never leaves
// half a file). A terminal, a pipe or /dev/null is written in place.
#pragma once
#include <string>
#include <vector>

namespace evb {

// Throws ConfigError naming `what` (the flag) and the path when it cannot be written: its folder
// missing or not writable, a directory, a full file system, or one of `inputs` (the same file).
void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs);
// Throws std::runtime_error naming `what` and the path when the text could not be written whole;
// the file then is as it was.
void write_output_file(const std::string& path, const std::string& what, const std::string& text);

} // namespace evb
