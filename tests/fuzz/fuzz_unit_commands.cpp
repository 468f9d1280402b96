// The 64 B unit commands and the immediates of arriving writes, as each unit decodes them: a
// real event build on the in-process driver (every unit, Node and the executor as evbench runs
// them), into which the input injects commands and write arrivals at chosen ranks and moments,
// as a peer with any content could send them. A crash, a sanitizer report or a hang (libFuzzer's
// -timeout) is a finding; a unit may count the command as an error, log it, or end the run.
// Input: a mode byte (protocol, scheduling, failure policy), then injections of
//   [rank u8][from u8][after polls u8][kind u8] + 64 B command (kind even) or imm u32, offset u32, length u32 (odd).
#include "fuzz_input.hpp"
#include "recorded_traffic.hpp"
#include "seed_dir.hpp"

#include <cstdio>
#include <cstdlib>
#include <deque>

using namespace evb;

namespace {

struct Injection {
    std::uint32_t rank = 0;
    std::uint32_t after_polls = 0;
    Completion completion;
};

class Injecting final : public test::ForwardingTransport {
public:
    Injecting(std::unique_ptr<Transport> inner, std::deque<Injection> mine)
        : ForwardingTransport(std::move(inner)), mine_(std::move(mine)) {}
    MemoryRegion register_memory(std::byte* base, std::size_t length) override {
        smallest_region_ = std::min(smallest_region_, length);
        return ForwardingTransport::register_memory(base, length);
    }
    std::size_t poll(std::span<Completion> out) override {
        std::size_t n = ForwardingTransport::poll(out);
        ++polls_;
        while (!mine_.empty() && n < out.size() && polls_ >= mine_.front().after_polls) {
            Completion c = mine_.front().completion;
            mine_.pop_front();
            // The transport has checked where a write landed (write_target): only its immediate
            // is the peer's to choose.
            if (c.kind == Completion::Kind::write_arrived) {
                if (smallest_region_ == SIZE_MAX) continue;
                c.length = smallest_region_ ? c.length % (smallest_region_ + 1) : 0;
                c.offset = smallest_region_ - c.length ? c.offset % (smallest_region_ - c.length + 1) : 0;
            }
            out[n++] = c;
        }
        return n;
    }

private:
    std::deque<Injection> mine_;
    std::size_t smallest_region_ = SIZE_MAX;
    std::uint64_t polls_ = 0;
};

Config mode_config(std::uint8_t mode) {
    const Protocol protocols[] = {Protocol::pull, Protocol::push, Protocol::pull_no_em};
    const Scheduling schedulings[] = {Scheduling::barrel_shift, Scheduling::random, Scheduling::barrel_sync};
    Config c = fuzz::small_event_build(protocols[mode % 3], schedulings[(mode / 3) % 3]);
    if (mode & 0x80) c.on_failure = OnFailure::continue_run;
    return c;
}

void write_seeds() {
    std::uint32_t written = 0;
    for (int mode : {0, 1, 2, 6, 0x80}) {
        const Config c = mode_config(static_cast<std::uint8_t>(mode));
        const auto traffic = fuzz::record_traffic(c);
        // Real commands and arrivals replayed at their own rank, a few at a time from each.
        for (std::size_t to = 0; to < traffic.size(); ++to) {
            std::string seed(1, static_cast<char>(mode));
            std::uint32_t taken = 0;
            for (const fuzz::Received& r : traffic[to].received) {
                if (taken++ % 3) continue;
                seed.push_back(static_cast<char>(to));
                seed.push_back(static_cast<char>(r.from));
                seed.push_back(static_cast<char>(taken));
                seed.push_back(r.is_write ? 1 : 0);
                if (r.is_write) {
                    fuzz::append_bytes(seed, r.imm);
                    fuzz::append_bytes(seed, static_cast<std::uint32_t>(r.offset));
                    fuzz::append_bytes(seed, static_cast<std::uint32_t>(r.bytes.size()));
                } else {
                    seed.append(reinterpret_cast<const char*>(r.command.data()), r.command.size());
                }
                if (seed.size() > 2048) break;
            }
            fuzz::write_seed("mode" + std::to_string(mode) + "-rank" + std::to_string(to), seed);
            ++written;
        }
    }
    std::printf("fuzz_unit_commands: %u seeds of real traffic\n", written);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::write_seeds_when_asked(write_seeds);
    logger("evb").set_level(spdlog::level::off);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const Config c = mode_config(data[0]);
    const std::uint32_t ranks = Layout::from_config(c).ranks();
    std::vector<std::deque<Injection>> injections(ranks);
    for (std::size_t at = 1; at + 4 <= size;) {
        Injection i;
        i.rank = data[at] % ranks;
        i.completion.peer = data[at + 1] % ranks;
        i.after_polls = data[at + 2];
        const bool write = data[at + 3] & 1;
        at += 4;
        if (write) {
            if (at + 12 > size) break;
            std::uint32_t v[3];
            std::memcpy(v, data + at, sizeof v);
            at += sizeof v;
            i.completion.kind = Completion::Kind::write_arrived;
            i.completion.imm = v[0];
            i.completion.offset = v[1];
            i.completion.length = v[2];
        } else {
            if (at + command_bytes > size) break;
            i.completion.kind = Completion::Kind::message;
            std::memcpy(i.completion.command.data(), data + at, command_bytes);
            at += command_bytes;
        }
        injections[i.rank].push_back(i);
    }
    std::vector<std::unique_ptr<Transport>> transports;
    std::uint32_t rank = 0;
    for (auto& t : LocalDriver().make_all(ranks))
        transports.push_back(std::make_unique<Injecting>(std::move(t), std::move(injections[rank++])));
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    (void)run_in_process(c, std::move(transports), console);
    return 0;
}
