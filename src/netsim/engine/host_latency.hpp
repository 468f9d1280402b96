// Host-side latency before a message is injected (PCIe + software stack, thesis 3.4.3 fig. 3.9):
// fixed, uniform, lognormal, or drawn from a measured histogram file. Parsed from
// "fixed:1us", "uniform:0.8us:1.2us", "lognormal:1us:0.2" (median, sigma) or "file:PATH"
// (lines "latency weight", latency with a unit, e.g. "1.05us 120").
#pragma once
#include "core/time.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace evb::netsim {

class HostLatency {
public:
    HostLatency() = default;
    static HostLatency parse(const std::string& spec); // throws std::invalid_argument
    static HostLatency fixed(Picoseconds value);

    // `u1`, `u2` uniform in [0, 1): the caller owns the random stream (determinism).
    Picoseconds draw(double u1, double u2) const;
    Picoseconds mean() const;
    const std::string& spec() const { return spec_; }

private:
    enum class Kind { fixed, uniform, lognormal, histogram } kind_ = Kind::fixed;
    Picoseconds a_{}, b_{}; // fixed: a; uniform: [a, b]; lognormal: median a
    double sigma_ = 0;
    std::vector<Picoseconds> values_; // histogram
    std::vector<double> cumulative_;
    std::string spec_ = "fixed:0s";
};

} // namespace evb::netsim
