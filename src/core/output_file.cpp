#include "core/output_file.hpp"

#include "core/config_error.hpp"
#include "core/socket_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace evb {
namespace {

std::string folder_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

bool written_in_place(const struct stat& st) { return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode); }

// Below this much free space a result file would not fit (a JSON with every rank's rows).
constexpr unsigned long long least_free_bytes = 1u << 20;

void write_all(int fd, const std::string& text, const std::string& name) {
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error("cannot write " + name + ": " + std::strerror(errno));
        done += static_cast<std::size_t>(n);
    }
}

// Where "-" is written: standard output, or the copy of it take_stdout_for_output() kept.
int stdout_fd = STDOUT_FILENO;

// A write of nothing: a device that refuses every write (/dev/full: ENOSPC) refuses it too, and
// nothing reaches a terminal or a pipe. The error, or nothing.
std::optional<std::string> refuses_writes(int fd) {
    if (::write(fd, "", 0) < 0) return std::string(std::strerror(errno));
    return std::nullopt;
}

} // namespace

void take_stdout_for_output() {
    if (stdout_fd != STDOUT_FILENO) return;
    std::cout.flush();
    std::fflush(stdout);
    const int kept = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (kept < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        throw std::runtime_error(std::string("cannot keep standard output for '-': ") + std::strerror(errno));
    stdout_fd = kept;
}

void check_output_file(const std::string& path, const std::string& what, const std::vector<std::string>& inputs) {
    const std::string name = what + " '" + path + "'";
    if (path.empty()) throw ConfigError(what + " needs a file name");
    if (path == stdout_file) {
        if (fcntl(STDOUT_FILENO, F_GETFD) < 0) throw ConfigError(what + " -: standard output is closed");
        if (auto error = refuses_writes(STDOUT_FILENO)) throw ConfigError(what + " -: standard output cannot be written: " + *error);
        return;
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) throw ConfigError(name + " is a directory");
        for (const auto& input : inputs) {
            struct stat in {};
            if (stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)
                throw ConfigError(name + " is also an input of this run ('" + input + "'): it would be overwritten");
        }
        if (written_in_place(st)) {
            if (access(path.c_str(), W_OK) != 0) throw ConfigError(name + ": " + std::strerror(errno));
            if (S_ISCHR(st.st_mode)) { // not a pipe: opening one would wait for its reader
                const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
                if (fd < 0) throw ConfigError(name + ": " + std::strerror(errno));
                const auto error = refuses_writes(fd);
                close(fd);
                if (error) throw ConfigError(name + " cannot be written: " + *error);
            }
            return;
        }
        if (access(path.c_str(), W_OK) != 0) throw ConfigError(name + " cannot be written: " + std::strerror(errno));
    } else if (errno != ENOENT) {
        throw ConfigError(name + ": " + std::strerror(errno));
    }
    // The folder must take the temporary file the result is written to.
    const std::string folder = folder_of(path);
    struct stat fs {};
    if (stat(folder.c_str(), &fs) != 0)
        throw ConfigError(name + ": its folder '" + folder + "' " + (errno == ENOENT ? "does not exist" : std::strerror(errno)));
    if (!S_ISDIR(fs.st_mode)) throw ConfigError(name + ": '" + folder + "' is not a folder");
    std::string probe = path + ".evbench-XXXXXX";
    const int fd = mkstemp(probe.data());
    if (fd < 0) throw ConfigError(name + " cannot be written in '" + folder + "': " + std::strerror(errno));
    close(fd);
    unlink(probe.c_str());
    struct statvfs vfs {};
    if (statvfs(folder.c_str(), &vfs) == 0 && static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize < least_free_bytes)
        throw ConfigError(name + ": the file system of '" + folder + "' is full");
}

void write_output_file(const std::string& path, const std::string& what, const std::string& text) {
    const std::string name = what + " '" + path + "'";
    if (path == stdout_file) {
        write_all(stdout_fd, text, name);
        return;
    }
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && written_in_place(st)) {
        const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) throw std::runtime_error("cannot write " + name + ": " + std::strerror(errno));
        const ClosesFd closer{fd};
        write_all(fd, text, name);
        return;
    }
    std::string temporary = path + ".evbench-XXXXXX";
    const int fd = mkstemp(temporary.data());
    if (fd < 0) throw std::runtime_error("cannot write " + name + ": " + std::strerror(errno));
    try {
        const ClosesFd closer{fd};
        write_all(fd, text, name);
        if (fsync(fd) != 0) throw std::runtime_error("cannot write " + name + ": " + std::strerror(errno));
        // mkstemp makes the file 0600; a result is as readable as any file the user makes.
        const mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    } catch (...) {
        unlink(temporary.c_str());
        throw;
    }
    if (rename(temporary.c_str(), path.c_str()) != 0) {
        const int e = errno;
        unlink(temporary.c_str());
        throw std::runtime_error("cannot write " + name + ": " + std::strerror(e));
    }
}

} // namespace evb
