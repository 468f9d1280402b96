// Executors close a transport before the pools it registered are freed: a provider may still
// land data in registered memory while it closes (libfabric's tcp provider did, in fi_close after
// a peer died, into pools the node's units had already unmapped: a crash on a survivor). The
// transport here touches every region it registered when it is destroyed, as such a provider
// would; pools are mmap'ed, so a freed one is a segmentation fault, not a silent pass.
#include "distributed_run.hpp"
#include "in_process_run.hpp"
#include "layout.hpp"
#include "local_driver.hpp"
#include "report.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace evb;

namespace {

int regions_touched_at_close = 0;

class TouchesRegionsWhenClosed final : public Transport {
public:
    explicit TouchesRegionsWhenClosed(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}
    ~TouchesRegionsWhenClosed() override {
        for (const auto& r : regions_) {
            *static_cast<volatile std::byte*>(r.base) = std::byte{0x5A};
            *static_cast<volatile std::byte*>(r.base + r.length - 1) = std::byte{0x5A};
            ++regions_touched_at_close;
        }
    }
    const char* name() const override { return inner_->name(); }
    std::uint32_t rank() const override { return inner_->rank(); }
    std::uint32_t size() const override { return inner_->size(); }
    Capabilities capabilities() const override { return inner_->capabilities(); }
    std::string local_address() override { return inner_->local_address(); }
    void connect(const std::vector<std::string>& a, Picoseconds t) override { inner_->connect(a, t); }
    MemoryRegion register_memory(std::byte* base, std::size_t length) override {
        regions_.push_back(inner_->register_memory(base, length));
        return regions_.back();
    }
    PostStatus post_send(std::uint32_t peer, const CommandBytes& c) override { return inner_->post_send(peer, c); }
    PostStatus post_write(std::uint32_t peer, const MemoryRegion& local, std::size_t local_offset, std::uint64_t key, std::uint64_t offset,
                          std::size_t length, std::uint32_t imm, std::uint64_t cookie) override {
        return inner_->post_write(peer, local, local_offset, key, offset, length, imm, cookie);
    }
    std::string last_error() const override { return inner_->last_error(); }
    std::size_t poll(std::span<Completion> out) override { return inner_->poll(out); }

private:
    std::unique_ptr<Transport> inner_;
    std::vector<MemoryRegion> regions_;
};

Config small_run(std::uint32_t nodes) {
    Config c;
    c.nodes = nodes;
    c.events = 50;
    c.duration = Picoseconds(0);
    c.fragment_size = 4096;
    c.quiet = true;
    return c;
}

} // namespace

TEST(ExecutorTeardown, InProcessRunClosesTransportsBeforeThePoolsGo) {
    Config c = small_run(3);
    std::vector<std::unique_ptr<Transport>> transports;
    for (auto& t : LocalDriver().make_all(Layout::from_config(c).ranks())) transports.push_back(std::make_unique<TouchesRegionsWhenClosed>(std::move(t)));
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    regions_touched_at_close = 0;
    RunOutcome o = run_in_process(c, std::move(transports), console);
    ASSERT_TRUE(o.result);
    EXPECT_EQ(o.result->system().events_built, 50u);
    EXPECT_GT(regions_touched_at_close, 0);
}

TEST(ExecutorTeardown, DistributedRunClosesItsTransportBeforeThePoolsGo) {
    Config c = small_run(1);   // one rank: the bootstrap and the executor as every rank runs them
    c.bootstrap = "127.0.0.1:0";
    World world;
    world.launcher = "test";
    world.single_host = true;
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    regions_touched_at_close = 0;
    RunOutcome o = run_distributed(c, world, "fingerprint", [](const std::string&, std::uint32_t, std::uint32_t) {
        auto all = LocalDriver().make_all(1);
        return std::unique_ptr<Transport>(std::make_unique<TouchesRegionsWhenClosed>(std::move(all.front())));
    }, console);
    ASSERT_TRUE(o.result) << (o.rank_failure ? *o.rank_failure : "");
    EXPECT_EQ(o.result->system().events_built, 50u);
    EXPECT_GT(regions_touched_at_close, 0);
}
