// LD_PRELOAD shim for tests: counts a process's calls of rdma_get_cm_event (each one a syscall
// on the connection manager's channel) and prints "cm_event_calls=N" on stderr at exit.
#include <dlfcn.h>
#include <rdma/rdma_cma.h>

#include <atomic>
#include <cstdio>

namespace {

std::atomic<unsigned long> calls{0};

struct Report {
    ~Report() { std::fprintf(stderr, "cm_event_calls=%lu\n", calls.load()); }
} report;

} // namespace

extern "C" int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event) {
    using Real = int (*)(rdma_event_channel*, rdma_cm_event**);
    static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "rdma_get_cm_event"));
    ++calls;
    return real(channel, event);
}
