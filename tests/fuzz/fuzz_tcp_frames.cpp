// The tcp driver's frame stream as a receiving rank reads it (tcp_frame.hpp), split anywhere:
// read whole, in pieces, and in pieces with open write bodies received straight into their
// region (as TcpTransport does), the three must agree on every completion, on the refusal and
// on every byte of the regions, and no byte may land outside them (ASan).
// Input: three region sizes (u32 each, at most 1 MiB), a split seed (u8), then the stream.
#include "fuzz_input.hpp"
#include "recorded_traffic.hpp"
#include "seed_dir.hpp"
#include "drivers/tcp/tcp_frame.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace evb;

namespace {

constexpr std::size_t region_count = 3;

struct Rank final : TcpFrameReader::Sink {
    explicit Rank(const std::uint32_t (&sizes)[region_count]) {
        for (std::size_t i = 0; i < region_count; ++i) memory[i].assign(sizes[i], std::byte{0});
        for (std::size_t i = 0; i < region_count; ++i) regions.push_back({memory[i].data(), memory[i].size(), i + 1});
    }
    WriteTarget target(std::uint64_t key, std::uint64_t offset, std::uint64_t length) override {
        return write_target(regions, key, offset, length);
    }
    void arrived(const Completion& c) override { completions.push_back(c); }

    std::vector<std::byte> memory[region_count];
    std::vector<MemoryRegion> regions;
    std::vector<Completion> completions;
    std::string refused;
};

bool same(const Rank& a, const Rank& b) {
    if (a.refused != b.refused || a.completions.size() != b.completions.size()) return false;
    for (std::size_t i = 0; i < a.completions.size(); ++i) {
        const Completion &x = a.completions[i], &y = b.completions[i];
        if (x.kind != y.kind || x.imm != y.imm || x.offset != y.offset || x.length != y.length || x.command != y.command) return false;
    }
    for (std::size_t i = 0; i < region_count; ++i)
        if (a.memory[i] != b.memory[i]) return false;
    return true;
}

// Piece sizes from a seed: 1 B up to 2^(seed % 13) B.
struct Pieces {
    std::uint32_t state, cap;
    explicit Pieces(std::uint8_t seed) : state(seed * 2654435761u + 1), cap(1u << (seed % 13)) {}
    std::size_t next() {
        state = state * 1103515245u + 12345u;
        return 1 + (state >> 8) % cap;
    }
};

void feed(Rank& r, std::span<const std::byte> stream, std::uint8_t seed, bool into_bodies) {
    TcpFrameReader reader;
    Pieces pieces(seed);
    while (!stream.empty() && r.refused.empty()) {
        std::size_t n = std::min(pieces.next(), stream.size());
        std::span<std::byte> body = into_bodies ? reader.body_room(r) : std::span<std::byte>{};
        if (!body.empty()) {
            n = std::min(n, body.size());
            std::memcpy(body.data(), stream.data(), n);
            r.refused = reader.landed(n, r);
        } else {
            r.refused = reader.take(stream.first(n), r);
        }
        stream = stream.subspan(n);
    }
}

void write_seeds() {
    std::uint32_t written = 0;
    for (Protocol protocol : {Protocol::pull, Protocol::push, Protocol::pull_no_em}) {
        auto traffic = fuzz::record_traffic(fuzz::small_event_build(protocol, Scheduling::barrel_shift));
        for (std::size_t to = 0; to < traffic.size(); ++to) {
            for (std::uint32_t from = 0; from < traffic.size(); ++from) {
                std::string seed;
                for (std::size_t i = 0; i < region_count; ++i) {
                    const auto& sizes = traffic[to].region_sizes;
                    fuzz::append_bytes(seed, static_cast<std::uint32_t>(i < sizes.size() ? sizes[i] : 0));
                }
                seed.push_back(static_cast<char>(written * 37));
                for (const fuzz::Received& r : traffic[to].received) {
                    if (r.from != from || seed.size() > (64u << 10)) continue;
                    WriteHeader h{};
                    if (r.is_write) {
                        h = {tcp_frame_write, r.imm, r.key, r.offset, r.bytes.size()};
                        fuzz::append_bytes(seed, h);
                        seed.append(reinterpret_cast<const char*>(r.bytes.data()), r.bytes.size());
                    } else {
                        h = {tcp_frame_message, 0, 0, 0, command_bytes};
                        fuzz::append_bytes(seed, h);
                        seed.append(reinterpret_cast<const char*>(r.command.data()), r.command.size());
                    }
                }
                if (seed.size() > 13)
                    fuzz::write_seed(to_string(protocol) + "-" + std::to_string(from) + "-to-" + std::to_string(to), seed), ++written;
            }
        }
    }
    std::printf("fuzz_tcp_frames: %u seeds of real traffic\n", written);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::write_seeds_when_asked(write_seeds);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    constexpr std::size_t head = 4 * region_count + 1;
    if (size < head) return 0;
    std::uint32_t sizes[region_count];
    std::memcpy(sizes, data, sizeof sizes);
    for (auto& s : sizes) s = std::min<std::uint32_t>(s, 1u << 20);
    const std::uint8_t seed = data[4 * region_count];
    const std::span<const std::byte> stream(reinterpret_cast<const std::byte*>(data) + head, size - head);

    Rank whole(sizes), pieces(sizes), bodies(sizes);
    TcpFrameReader reader;
    whole.refused = reader.take(stream, whole);
    feed(pieces, stream, seed, false);
    feed(bodies, stream, seed, true);
    if (!same(whole, pieces) || !same(whole, bodies)) {
        std::fprintf(stderr, "fuzz_tcp_frames: the stream read whole and in pieces disagree\n");
        std::abort();
    }
    for (const Completion& c : whole.completions)
        if (c.kind == Completion::Kind::write_arrived && !span_fits(c.offset, c.length, 1u << 20)) std::abort();
    return 0;
}
