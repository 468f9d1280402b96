// What a switch's input ports ask of its outputs (Switches): per output port and VL, a bitset of
// the inputs whose head packet waits for that output, and each one's need (blocks of credit) and
// packet side by side, so that a request writes one line, not two; and the output's round robin
// over them, from the input after the one granted last. A host adapter's requesters are its flows
// (AdapterFlows).
#pragma once
#include "core/huge_page_allocator.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace evb::netsim {

class SwitchRequests {
public:
    static constexpr std::uint32_t none = UINT32_MAX;
    // Where an output's round robin starts once input `last` was granted (none yet: input 0).
    static std::uint32_t start_after(std::uint32_t last) { return last == none ? 0 : last + 1; }
    struct Request {
        std::uint32_t need, packet;
    };

    // One output's requests on one VL.
    struct Output {
        std::uint64_t* bits;
        Request* asked;
        std::uint32_t words;

        const Request& operator[](std::uint32_t in) const { return asked[in]; }
        // Input `in` asks with its head `packet` of `need` blocks.
        void ask(std::uint32_t in, std::uint32_t need, std::uint32_t packet) {
            bits[in / 64] |= std::uint64_t{1} << (in % 64);
            asked[in] = Request{need, packet};
        }
        // Input `in` was granted (its next head asks again): whether another input still asks.
        bool withdraw(std::uint32_t in) {
            bits[in / 64] &= ~(std::uint64_t{1} << (in % 64));
            return words == 1 ? bits[0] != 0 : std::any_of(bits, bits + words, [](std::uint64_t w) { return w != 0; });
        }
        // The asking inputs in round robin order from input `start` (at most words * 64), each
        // given to `visit` until it returns true (granted); whether one was.
        template <class Visit>
        bool visit_from(std::uint32_t start, Visit&& visit) const {
            if (words == 1) { // up to 64 ports, as switches have: those from start, then those before it
                const std::uint64_t from = ~std::uint64_t{0} << (start % 64);
                for (std::uint64_t part : {bits[0] & from, bits[0] & ~from})
                    for (; part; part &= part - 1)
                        if (visit(static_cast<std::uint32_t>(std::countr_zero(part)))) return true;
                return false;
            }
            const std::uint32_t bits_total = words * 64;
            for (std::uint32_t scanned = 0; scanned < bits_total;) {
                std::uint32_t pos = start + scanned; // start <= bits_total, scanned < bits_total
                if (pos >= bits_total) pos -= bits_total;
                const std::uint64_t word = bits[pos / 64] >> (pos % 64);
                if (!word) {
                    scanned += 64 - pos % 64;
                    continue;
                }
                const auto skip = static_cast<std::uint32_t>(std::countr_zero(word));
                if (scanned + skip >= bits_total) break;
                pos += skip;
                scanned += skip + 1;
                if (visit(pos)) return true;
            }
            return false;
        }
        // On a switch of up to 64 ports, the input the round robin from `start` visits first;
        // none when no input asks or the switch has more ports (a guess for a prefetch).
        std::uint32_t first_from(std::uint32_t start) const {
            if (words != 1 || !bits[0]) return none;
            const std::uint64_t after = bits[0] & (~std::uint64_t{0} << (start % 64));
            return static_cast<std::uint32_t>(std::countr_zero(after ? after : bits[0]));
        }
    };

    // The layout: `devices` devices, then add_switch for each switch, then allocate for `vls` VLs.
    void reset(std::size_t devices) { layout_.assign(devices, Layout{}); }
    void add_switch(std::uint32_t device, std::uint32_t ports) {
        Layout& l = layout_[device];
        l.ports = ports;
        l.words = (ports + 63) / 64;
    }
    void allocate(std::uint32_t vls) {
        std::uint32_t words = 0, slots = 0;
        for (Layout& l : layout_) { // switches side by side, in device order
            l.word_base = words;
            words += l.words * vls * l.ports;
            l.slot_base = slots;
            slots += l.ports * vls * l.ports;
        }
        words_.assign(words, 0);
        requests_.assign(slots, Request{0, none});
    }

    // Output port `local` of switch `device` on VL `vl` of `vls`: port_vl = local * vls + vl (the
    // caller knows the VLs, so that this holds no more than the three tables).
    Output output(std::uint32_t device, std::uint32_t port_vl) {
        const Layout& l = layout_[device];
        return {&words_[l.word_base + port_vl * l.words], &requests_[l.slot_base + port_vl * l.ports], l.words};
    }

private:
    // Where a switch's state starts, and its bitset words and ports per (port, VL).
    struct Layout {
        std::uint32_t word_base = 0, slot_base = 0, words = 0, ports = 0;
    };
    std::vector<Layout> layout_; // per device (switches)
    HugePageVector<std::uint64_t> words_;
    HugePageVector<Request> requests_;
};

} // namespace evb::netsim
