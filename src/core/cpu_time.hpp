// CPU time this process spent (getrusage), for the cost of moving bytes: user time is evbench's
// own work and the libraries' busy polling, system time the kernel's copies and interrupts.
#pragma once

namespace evb {

struct CpuTime {
    double user_s = 0;
    double system_s = 0;
    double total_s() const { return user_s + system_s; }
    CpuTime operator-(const CpuTime& before) const { return {user_s - before.user_s, system_s - before.system_s}; }
};

// Every thread of this process, so far.
CpuTime process_cpu_time();

} // namespace evb
