#include "core/cpu_time.hpp"

#include <sys/resource.h>

namespace evb {

namespace {
double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }
} // namespace

CpuTime process_cpu_time() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return {seconds(u.ru_utime), seconds(u.ru_stime)};
}

} // namespace evb
