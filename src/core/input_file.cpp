#include "core/input_file.hpp"

#include "core/config_error.hpp"
#include "core/socket_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

namespace evb {
namespace {

std::string size_text(std::size_t bytes) {
    if (bytes >= (std::size_t{1} << 30) && bytes % (std::size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
    if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
    if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
    return std::to_string(bytes) + " B";
}

} // namespace

std::string read_input_file(const std::string& path, std::size_t limit, const std::string& what) {
    const std::string name = what + " '" + path + "'";
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) throw ConfigError(name + ": " + std::strerror(errno));
    const ClosesFd closer{fd};
    struct stat st {};
    if (fstat(fd, &st) != 0) throw ConfigError(name + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw ConfigError(name + " is not a regular file (" +
                          (S_ISDIR(st.st_mode)        ? "a directory"
                               : S_ISFIFO(st.st_mode) ? "a pipe"
                                                      : "a device or socket") +
                          ")");
    if (static_cast<std::uint64_t>(st.st_size) > limit)
        throw ConfigError(name + " has " + std::to_string(st.st_size) + " bytes, more than the " + size_text(limit) +
                          " such a file may have");
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    for (;;) {
        if (got == text.size()) {
            if (text.size() > limit) throw ConfigError(name + " grew beyond " + size_text(limit) + " while it was read");
            text.resize(std::min(limit + 1, text.size() + 65536)); // a file that grows while read
        }
        const ssize_t n = read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ConfigError(name + ": " + std::strerror(errno));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (got > limit) throw ConfigError(name + " grew beyond " + size_text(limit) + " while it was read");
    return text;
}

} // namespace evb
