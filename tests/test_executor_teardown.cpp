// Executors close a transport before the pools it registered are freed: a provider may still
// land data in registered memory while it closes (libfabric's tcp provider did, in fi_close after
// a peer died, into pools the node's units had already unmapped: a crash on a survivor). The
// transport here touches every region it registered when it is destroyed, as such a provider
// would; pools are mmap'ed, so a freed one is a segmentation fault, not a silent pass.
#include "exec/distributed_run.hpp"
#include "forwarding_transport.hpp"
#include "one_rank_run.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "report/report.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace evb;

namespace {

int regions_touched_at_close = 0;

class TouchesRegionsWhenClosed final : public test::ForwardingTransport {
public:
    using ForwardingTransport::ForwardingTransport;
    ~TouchesRegionsWhenClosed() override {
        for (const auto& r : regions_) {
            *static_cast<volatile std::byte*>(r.base) = std::byte{0x5A};
            *static_cast<volatile std::byte*>(r.base + r.length - 1) = std::byte{0x5A};
            ++regions_touched_at_close;
        }
    }
    MemoryRegion register_memory(std::byte* base, std::size_t length) override {
        regions_.push_back(ForwardingTransport::register_memory(base, length));
        return regions_.back();
    }

private:
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
    for (auto& t : LocalDriver().make_all(Layout::from_config(c).ranks()))
        transports.push_back(std::make_unique<TouchesRegionsWhenClosed>(std::move(t)));
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    regions_touched_at_close = 0;
    RunOutcome o = run_in_process(c, std::move(transports), console);
    ASSERT_TRUE(o.result);
    EXPECT_EQ(o.result->system().events_built, 50u);
    EXPECT_GT(regions_touched_at_close, 0);
}

TEST(ExecutorTeardown, DistributedRunClosesItsTransportBeforeThePoolsGo) {
    regions_touched_at_close = 0;
    RunOutcome o = test::run_one_local_rank(
        small_run(1), [](std::unique_ptr<Transport> t) { return std::make_unique<TouchesRegionsWhenClosed>(std::move(t)); });
    ASSERT_TRUE(o.result) << (o.rank_failure ? *o.rank_failure : "");
    EXPECT_EQ(o.result->system().events_built, 50u);
    EXPECT_GT(regions_touched_at_close, 0);
}
