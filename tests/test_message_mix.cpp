// The message mix (paper 003 sec. 3.3): a fragment's data as K writes and M metadata writes of S
// bytes. Where each piece lands, that a misplaced or mislabelled piece is caught, and that runs on
// local, tcp, mpi and sim move exactly K + M writes and f + M S bytes per fragment, all verified.
#include "units/builder_unit.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "local_run.hpp"
#include "units/message_mix.hpp"
#include "units/readout_unit.hpp"
#include "recording_context.hpp"
#include "report/report.hpp"
#include "run_command.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

using namespace evb;
using namespace evb::test;

namespace {

Config mixed(std::uint32_t k, std::uint64_t meta_size, std::uint32_t m) {
    Config c;
    c.nodes = 4;
    c.credits = 2;
    c.parallel = 2;
    c.fragment_size = 8192;
    c.data_segments = k;
    c.meta_size = meta_size;
    c.meta_segments = m;
    c.events = 0;
    c.duration = Picoseconds(0);
    c.verify = Verify::full;
    return c;
}

} // namespace

TEST(MessageMix, DataPiecesTileTheFragmentAndMetadataFollowsTheDataArea) {
    Config c = mixed(3, 1000, 2);
    MessageMix mix(c);
    ASSERT_EQ(mix.pieces(), 5u);
    EXPECT_EQ(mix.all_pieces(), 0x1Fu);
    for (std::uint32_t f : {64u, 72u, 4096u, 8192u}) {
        std::uint64_t at = 0;
        for (std::uint32_t p = 0; p < 3; ++p) {
            Piece piece = mix.piece(p, f);
            EXPECT_EQ(piece.offset, at) << "f " << f << " piece " << p; // contiguous: one checksum covers them
            EXPECT_GE(piece.length, 8u);
            EXPECT_EQ(piece.length % 8, 0u);
            at += piece.length;
        }
        EXPECT_EQ(at, f);
        EXPECT_EQ(mix.piece(3, f).offset, c.data_area());
        EXPECT_EQ(mix.piece(4, f).offset, c.data_area() + Config::align64(1000));
        EXPECT_EQ(mix.piece(4, f).length, 1000u);
    }
    EXPECT_EQ(c.fragment_stride(), Config::align64(8192) + 2 * Config::align64(1000));
    EXPECT_EQ(c.required_memory(), std::uint64_t{2} * 4 * 2 * (8192 + 2000)); // eq. 3.1 with f + M S
    EXPECT_EQ(mix.tag(0), 0u);
    EXPECT_EQ(mix.tag(2), 0u);
    EXPECT_EQ(mix.tag(3), 1u);
    EXPECT_EQ(mix.tag(4), 2u);
}

TEST(MessageMix, HeadersOnlyMemoryGivesEverySegmentAPlaceOfItsOwn) {
    Config c = mixed(2, 10240, 2);
    c.fragment_size = 1 << 20;
    c.fragment_memory = 64; // what --transport sim sets
    MessageMix mix(c);
    EXPECT_EQ(c.fragment_stride(), 4u * 64);
    EXPECT_EQ(mix.piece(0, 1 << 20).offset, 0u);
    EXPECT_EQ(mix.piece(1, 1 << 20).offset, 64u);
    EXPECT_EQ(mix.piece(1, 1 << 20).length, 512u * 1024);
    EXPECT_EQ(mix.piece(2, 1 << 20).offset, 128u);
    EXPECT_EQ(mix.piece(3, 1 << 20).offset, 192u);
    EXPECT_EQ(c.wire_fragment_stride(), (1u << 20) + 2 * 10240u);
}

TEST(MessageMix, TheReadoutUnitWritesEveryPieceFromItsPlaceToTheSamePlaceInTheSlot) {
    Config c = mixed(2, 512, 2);
    FragmentSizer sizer(c);
    auto schedule = make_schedule(c.scheduling, 1);
    UnitSetup setup{c, sizer, *schedule};
    MemoryPool pool(c.fragment_stride(), 2);
    ReadoutUnit ru(setup, 1, pool);
    RecordingContext ctx;
    Message r{};
    r.type = MessageType::request;
    r.event = 9;
    r.from_index = 2;
    r.slot = 1;
    r.rkey = 5;
    r.offset = 100000;
    ru.on_message(ctx, r);
    MessageMix mix(c);
    ASSERT_EQ(ctx.writes.size(), 4u);
    for (std::uint32_t p = 0; p < 4; ++p) {
        const auto& w = ctx.writes[p];
        Piece piece = mix.piece(p, 8192);
        EXPECT_EQ(w.block_offset, piece.offset);
        EXPECT_EQ(w.offset, 100000 + piece.offset);
        EXPECT_EQ(w.length, piece.length);
        EXPECT_EQ(WriteImm::piece(w.imm), p);
        EXPECT_EQ(WriteImm::slot(w.imm), 1u);
        EXPECT_EQ(WriteImm::source(w.imm), 1u);
    }
    // The buffer returns, and the fragment counts, only when the last of its writes is done.
    for (std::uint32_t p = 0; p < 4; ++p) {
        EXPECT_EQ(ctx.stats_.fragments_out, 0u);
        EXPECT_EQ(pool.in_use(), 1u);
        WriteCompletion done;
        done.kind = WriteCompletion::Kind::write_done;
        done.cookie = ctx.writes[p].cookie;
        ru.on_completion(ctx, done);
    }
    EXPECT_EQ(ctx.stats_.fragments_out, 1u);
    EXPECT_EQ(ctx.stats_.writes_out, 4u);
    EXPECT_EQ(ctx.stats_.bytes_out, 8192u + 2 * 512);
    EXPECT_EQ(pool.in_use(), 0u);
}

// Lands RU `source`'s fragment of `event` in the BU's slot piece by piece, as the transport would,
// with `tamper` applied to the piece's bytes first.
class MixedBuilder {
public:
    explicit MixedBuilder(const Config& config)
        : c(config), sizer(c), schedule(make_schedule(c.scheduling, 1)), setup{c, sizer, *schedule},
          slots(c.fragment_stride() * c.nodes, 4), mix(c) {
        slots.set_remote_key(7);
        bu = std::make_unique<BuilderUnit>(setup, 0, slots);
        bu->on_start(ctx);
        Message a{};
        a.type = MessageType::assign;
        a.event = 3;
        a.slot = 0;
        bu->on_message(ctx, a);
    }
    template <class Tamper>
    void land(std::uint32_t source, std::uint32_t piece, Tamper tamper, std::uint64_t extra_offset = 0) {
        RecordingContext ru_ctx;
        MemoryPool ru_pool(c.fragment_stride(), 1);
        ReadoutUnit ru(setup, source, ru_pool);
        Message r{};
        r.type = MessageType::request;
        r.event = 3;
        r.offset = slots.offset_of(0) + source * c.fragment_stride();
        ru.on_message(ru_ctx, r);
        const auto& w = ru_ctx.writes.at(piece);
        std::vector<std::byte> bytes(ru_pool.block(0) + w.block_offset, ru_pool.block(0) + w.block_offset + w.length);
        tamper(bytes);
        std::memcpy(slots.data() + w.offset + extra_offset, bytes.data(), bytes.size());
        WriteCompletion arrived;
        arrived.kind = WriteCompletion::Kind::write_arrived;
        arrived.imm = w.imm;
        arrived.offset = w.offset + extra_offset;
        arrived.length = w.length;
        bu->on_completion(ctx, arrived);
    }
    void land(std::uint32_t source, std::uint32_t piece) {
        land(source, piece, [](std::vector<std::byte>&) {});
    }

    Config c;
    FragmentSizer sizer;
    std::unique_ptr<Schedule> schedule;
    UnitSetup setup;
    MemoryPool slots;
    MessageMix mix;
    RecordingContext ctx;
    std::unique_ptr<BuilderUnit> bu;
};

TEST(MessageMix, TheBuilderCompletesAFragmentOnlyWhenEveryPieceIsIn) {
    Config c = mixed(2, 256, 2);
    c.nodes = 2;
    c.parallel = 2;
    MixedBuilder b(c);
    for (std::uint32_t p : {3u, 0u, 2u, 1u}) b.land(0, p);
    EXPECT_EQ(b.ctx.stats_.fragments_in, 1u);
    for (std::uint32_t p : {1u, 2u, 3u}) b.land(1, p);
    EXPECT_EQ(b.ctx.stats_.fragments_in, 1u);
    EXPECT_EQ(b.bu->built(), 0u);
    b.land(1, 0);
    EXPECT_EQ(b.bu->built(), 1u);
    EXPECT_EQ(b.ctx.stats_.writes_in, 8u);
    EXPECT_EQ(b.ctx.stats_.errors.total(), 0u) << b.ctx.stats_.errors.describe();
}

TEST(MessageMix, AMetadataSegmentWithAFlippedBitOrAtAnotherPlaceIsCaught) {
    Config c = mixed(2, 256, 2);
    c.nodes = 2;
    c.parallel = 2;
    MixedBuilder b(c);
    for (std::uint32_t p = 0; p < 4; ++p) b.land(0, p);
    b.land(1, 0);
    b.land(1, 1);
    b.land(1, 2, [](std::vector<std::byte>& bytes) { bytes[100] ^= std::byte{4}; });
    // Metadata segment 1 written 64 B beyond its place: refused, never counted as landed.
    b.land(
        1, 3, [](std::vector<std::byte>&) {}, 64);
    EXPECT_EQ(b.ctx.stats_.errors.unexpected, 1u);
    EXPECT_EQ(b.bu->built(), 0u);
    b.land(1, 3);
    EXPECT_EQ(b.bu->built(), 1u);
    EXPECT_EQ(b.ctx.stats_.errors.bad_payload, 1u);
    // Metadata segments told apart by their header's tag: segment 0's bytes in segment 1's place.
    MixedBuilder swapped(c);
    for (std::uint32_t p = 0; p < 4; ++p) swapped.land(0, p);
    for (std::uint32_t p = 0; p < 3; ++p) swapped.land(1, p);
    swapped.land(1, 3, [&](std::vector<std::byte>& bytes) {
        FragmentHeader h;
        std::memcpy(&h, bytes.data(), sizeof h);
        h.flags = 1; // segment 0's tag
        std::memcpy(bytes.data(), &h, sizeof h);
    });
    EXPECT_EQ(swapped.ctx.stats_.errors.bad_header, 1u);
}

namespace {

// Writes and bytes a run of `events` events must have moved with this mix, from the sizer.
void expect_mix_moved(const NodeStats& sys, const Config& c, std::uint64_t events) {
    FragmentSizer sizer(c);
    std::uint64_t bytes = 0;
    for (std::uint64_t e = 0; e < events; ++e)
        for (std::uint32_t s = 0; s < c.nodes; ++s) bytes += sizer.size(e, s) + c.meta_bytes();
    std::uint64_t writes = events * c.nodes * (c.data_segments + c.meta_segments);
    EXPECT_EQ(sys.errors.total(), 0u) << sys.errors.describe();
    EXPECT_EQ(sys.events_built, events);
    EXPECT_EQ(sys.fragments_in, events * c.nodes);
    EXPECT_EQ(sys.writes_in, writes);
    EXPECT_EQ(sys.writes_out, writes);
    EXPECT_EQ(sys.bytes_in, bytes);
    EXPECT_EQ(sys.bytes_out, bytes);
    EXPECT_LE(sys.peak_ru_bytes, c.required_memory());
    EXPECT_LE(sys.peak_bu_bytes, c.required_memory());
}

} // namespace

class MixOnLocal : public ::testing::TestWithParam<Protocol> {};

TEST_P(MixOnLocal, ExactlyKPlusMWritesPerFragmentAllVerified) {
    Config c = mixed(2, 1024, 2);
    c.protocol = GetParam();
    c.size_distribution = SizeDistribution::uniform;
    c.events = 53;
    c.quiet = true;
    validate(c);
    RunResult r = run_local(c);
    ASSERT_FALSE(r.failure) << *r.failure;
    expect_mix_moved(r.system(), c, c.events);
}

INSTANTIATE_TEST_SUITE_P(EveryProtocol, MixOnLocal, ::testing::Values(Protocol::pull, Protocol::push, Protocol::pull_no_em),
                         [](const auto& i) {
                             return i.param == Protocol::pull ? "pull" : i.param == Protocol::push ? "push" : "pull_noem";
                         });

namespace {

// The paper's mix scaled down: two data segments, two 1 KiB metadata segments.
const std::string kMixArgs = " --data-segments 2 --meta-size 1KiB --meta-segments 2 --fragment-size 64KiB --events 200 --verify full";

void expect_json_mix(const nlohmann::json& doc, std::uint32_t nodes, std::uint64_t events) {
    ASSERT_FALSE(doc.is_null());
    std::uint64_t writes_in = 0, writes_out = 0, bytes_in = 0;
    for (const auto& n : doc["results"]["nodes"]) {
        writes_in += n["raw"]["writes_in"].get<std::uint64_t>();
        writes_out += n["raw"]["writes_out"].get<std::uint64_t>();
        bytes_in += n["raw"]["bytes_in"].get<std::uint64_t>();
    }
    EXPECT_EQ(doc["results"]["system"]["events_built"], events);
    EXPECT_EQ(doc["results"]["system"]["errors"], 0);
    EXPECT_EQ(writes_in, events * nodes * 4);
    EXPECT_EQ(writes_out, events * nodes * 4);
    EXPECT_EQ(bytes_in, events * nodes * (65536 + 2048));
}

} // namespace

TEST(MessageMix, TcpProcessesMoveTheMixExactly) {
    expect_json_mix(
        run_json_command(evbench_binary() + " --transport tcp --launch-local 4 --protocol push --parallel 2" + kMixArgs, "mix_tcp"), 4,
        200);
}

TEST(MessageMix, TheSimulatorMovesTheMixExactly) {
    // Headers only in memory: each segment's first 64 B travel through memory, the rest is wire.
    auto doc = run_json_command(evbench_binary() +
                                    " --transport sim --nodes 4 --credits 2 --parallel 2 --data-segments 2 --meta-size 1KiB "
                                    "--meta-segments 2 --fragment-size 64KiB --events 200",
                                "mix_sim");
    expect_json_mix(doc, 4, 200);
}

#ifdef EVB_HAVE_MPI
TEST(MpiTransport, MovesThePapersMessageMixExactly) {
    const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -np 4 ";
    expect_json_mix(run_json_command(mpirun + evbench_binary() + " --transport mpi --credits 2 --parallel 2" + kMixArgs, "mix_mpi"), 4,
                    200);
    expect_json_mix(
        run_json_command(mpirun + evbench_binary() + " --transport mpi --mpi-rma --protocol pull-noem" + kMixArgs, "mix_mpi_rma"), 4, 200);
}
#endif
