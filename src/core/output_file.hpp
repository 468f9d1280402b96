// Every file evbench writes on a user's behalf (--json, --write-topology, ...): checked before the
// work starts, so that a path it cannot write is one line and not a lost run, and written whole
// or not at all (a temporary file beside it, renamed over it: an interrupted run never leaves
// half a file). A terminal, a pipe or /dev/null is written in place.
#pragma once
#include <string>
#include <vector>

namespace evb {

// "-" as an output file is standard output (`--json - | jq .`). The process that writes it calls
// take_stdout_for_output() before it prints anything else: from then on what it, and any process
// it starts, prints to standard output goes to standard error, and standard output carries only
// the file. Without the call, "-" is written to standard output as it is.
inline constexpr const char* stdout_file = "-";
void take_stdout_for_output();

// Throws ConfigError naming `what` (the flag) and the path when it cannot be written: its folder
// missing or not writable, a directory, a full file system, or one of `inputs` (the same file).
void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs);
// Throws std::runtime_error naming `what` and the path when the text could not be written whole;
// the file then is as it was.
void write_output_file(const std::string& path, const std::string& what, const std::string& text);

} // namespace evb
