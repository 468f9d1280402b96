// Time as a strong integer-picosecond type, shared by the real executor and the simulator.
#pragma once
#include <chrono>
#include <compare>
#include <cstdint>

namespace evb {

class Picoseconds {
public:
    constexpr Picoseconds() = default;
    constexpr explicit Picoseconds(std::int64_t ps) : ps_(ps) {}
    constexpr std::int64_t count() const { return ps_; }
    constexpr double seconds() const { return static_cast<double>(ps_) * 1e-12; }
    constexpr double microseconds() const { return static_cast<double>(ps_) * 1e-6; }
    constexpr double nanoseconds() const { return static_cast<double>(ps_) * 1e-3; }
    static constexpr Picoseconds from_seconds(double s) { return Picoseconds(static_cast<std::int64_t>(s * 1e12)); }
    static constexpr Picoseconds max() { return Picoseconds(INT64_MAX); }

    constexpr auto operator<=>(const Picoseconds&) const = default;
    constexpr Picoseconds operator+(Picoseconds o) const { return Picoseconds(ps_ + o.ps_); }
    constexpr Picoseconds operator-(Picoseconds o) const { return Picoseconds(ps_ - o.ps_); }
    constexpr Picoseconds& operator+=(Picoseconds o) {
        ps_ += o.ps_;
        return *this;
    }
    constexpr Picoseconds& operator-=(Picoseconds o) {
        ps_ -= o.ps_;
        return *this;
    }
    constexpr Picoseconds operator*(std::int64_t k) const { return Picoseconds(ps_ * k); }

private:
    std::int64_t ps_ = 0;
};

namespace literals {
constexpr Picoseconds operator""_ps(unsigned long long v) { return Picoseconds(static_cast<std::int64_t>(v)); }
constexpr Picoseconds operator""_ns(unsigned long long v) { return Picoseconds(static_cast<std::int64_t>(v) * 1000); }
constexpr Picoseconds operator""_us(unsigned long long v) { return Picoseconds(static_cast<std::int64_t>(v) * 1000'000); }
constexpr Picoseconds operator""_ms(unsigned long long v) { return Picoseconds(static_cast<std::int64_t>(v) * 1000'000'000); }
constexpr Picoseconds operator""_s(unsigned long long v) { return Picoseconds(static_cast<std::int64_t>(v) * 1000'000'000'000); }
} // namespace literals

// Monotonic wall clock in picoseconds since an arbitrary origin.
inline Picoseconds steady_now() {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    return Picoseconds(static_cast<std::int64_t>(ns) * 1000);
}

// Bytes over a span as Gb/s (0 for an empty span).
inline double gbps(std::uint64_t bytes, Picoseconds span) {
    return span > Picoseconds(0) ? static_cast<double>(bytes) * 8 / span.seconds() / 1e9 : 0.0;
}

} // namespace evb
