// The time-window linear shifter's windows (thesis 3.2.3, --scheduling a2a): phase p lasts
// send + idle; in its send window sender i sends to peer (i + p) mod n, and only what finishes
// inside the window at the line rate. Pure arithmetic on the clock: the PUSH RU keeps the state
// (what it has posted), this keeps the windows.
#pragma once
#include "scheduling/barrel_shift.hpp"
#include "core/time.hpp"

#include <cstdint>
#include <optional>

namespace evb {

class TimeWindows {
public:
    // send > 0, idle >= 0, message > 0 (the configuration refuses anything else).
    TimeWindows(Picoseconds send, Picoseconds idle, Picoseconds message) : send_(send), idle_(idle), message_(message) {}

    struct Window {
        std::int64_t phase;
        Picoseconds start, end; // the send window: [start, end)
        Picoseconds next; // where the next phase's window starts
    };
    // The phase `now` falls in, and its send window (which `now` may be past: the idle window).
    Window at(Picoseconds now) const;
    // The peer sender `self` of n sends to in `phase`.
    static std::uint32_t peer(std::uint32_t self, std::int64_t phase, std::uint32_t n) {
        return shifted_peer(self, static_cast<std::uint64_t>(phase), n);
    }
    // When one more message ends if the sender's line is busy until `busy_until`: counted from the
    // window's start, back to back, as a NIC sends them (counted from the clock instead, a late
    // wake-up would cost the window messages it has room for); nullopt if it would spill into the
    // idle window.
    std::optional<Picoseconds> fit(const Window& w, Picoseconds busy_until) const;
    // Whole messages per send window, and the share of the window they take.
    std::uint64_t per_window() const { return static_cast<std::uint64_t>(send_.count() / message_.count()); }
    double fill() const { return static_cast<double>(per_window() * message_.count()) / static_cast<double>(send_.count()); }
    // The shortest send window, in whole nanoseconds (what --send-window can name), that holds
    // `messages` messages.
    Picoseconds send_window_holding(std::uint64_t messages) const {
        const std::int64_t ns = (static_cast<std::int64_t>(messages) * message_.count() + 999) / 1000;
        return Picoseconds(ns * 1000);
    }
    // Eq. 3.2: the rate per sender at line rate b, b T_send / (T_send + T_idle).
    double rate(double line_gbps) const { return line_gbps * send_.seconds() / (send_ + idle_).seconds(); }

private:
    Picoseconds send_, idle_, message_;
};

} // namespace evb
