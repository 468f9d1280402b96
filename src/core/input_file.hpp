// Every file evbench reads on a user's behalf (run keys, configs, fabric dumps, latency tables) is
// read here: a regular file of at most `limit` bytes, else one ConfigError line naming what it was
// for and the path. A device (/dev/zero), a FIFO or a directory is refused before a byte is read.
#pragma once
#include <cstddef>
#include <string>

namespace evb {

std::string read_input_file(const std::string& path, std::size_t limit, const std::string& what);

// The limits, by kind of file.
constexpr std::size_t config_file_limit = std::size_t{16} << 20;
constexpr std::size_t dump_file_limit = std::size_t{1} << 30;
constexpr std::size_t key_file_limit = 4096;

} // namespace evb
