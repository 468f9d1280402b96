// Real traffic for the wire fuzzers' seeds: a small event build on the in-process driver, with
// every command and write each rank posted recorded as its target receives it (the bytes of a
// write are read at post time, where the sender's data already is).
#pragma once
#include "forwarding_transport.hpp"
#include "exec/in_process_run.hpp"
#include "units/layout.hpp"
#include "drivers/local/local_driver.hpp"
#include "core/log.hpp"
#include "report/report.hpp"

#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

namespace evb::fuzz {

struct Received {
    std::uint32_t from = 0;
    bool is_write = false;
    CommandBytes command{}; // a message
    std::uint32_t imm = 0; // a write: its immediate, region key, offset and bytes
    std::uint64_t key = 0, offset = 0;
    std::vector<std::byte> bytes;
};

struct RankTraffic {
    std::vector<std::size_t> region_sizes; // by key - 1
    std::vector<Received> received; // in the order the senders posted
};

// A small run of each protocol the units know: the configuration the seeds and fuzzers share.
inline Config small_event_build(Protocol protocol, Scheduling scheduling) {
    Config c;
    c.protocol = protocol;
    c.scheduling = scheduling;
    c.nodes = 3;
    c.credits = 2;
    c.fragment_size = 512;
    c.events = 24;
    c.duration = Picoseconds::from_seconds(0.05);
    c.grace = Picoseconds::from_seconds(0.05);
    c.quiet = true;
    c.log_level = "off";
    return c;
}

class Recording final : public test::ForwardingTransport {
public:
    Recording(std::unique_ptr<Transport> inner, std::vector<RankTraffic>& all) : ForwardingTransport(std::move(inner)), all_(all) {}
    MemoryRegion register_memory(std::byte* base, std::size_t length) override {
        MemoryRegion r = ForwardingTransport::register_memory(base, length);
        auto& sizes = all_[rank()].region_sizes;
        if (sizes.size() < r.key) sizes.resize(r.key);
        sizes[r.key - 1] = length;
        return r;
    }
    PostStatus post_send(std::uint32_t peer, const CommandBytes& c) override {
        PostStatus s = ForwardingTransport::post_send(peer, c);
        if (s == PostStatus::ok) {
            Received r;
            r.from = rank();
            r.command = c;
            all_[peer].received.push_back(std::move(r));
        }
        return s;
    }
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override {
        PostStatus s = ForwardingTransport::post_write(peer, w);
        if (s == PostStatus::ok) {
            Received r;
            r.from = rank();
            r.is_write = true;
            r.imm = w.imm;
            r.key = w.remote_key;
            r.offset = w.remote_offset;
            r.bytes.assign(w.local.base + w.local_offset, w.local.base + w.local_offset + w.length);
            all_[peer].received.push_back(std::move(r));
        }
        return s;
    }

private:
    std::vector<RankTraffic>& all_;
};

inline std::vector<RankTraffic> record_traffic(const Config& c) {
    logger("evb").set_level(spdlog::level::off);
    const std::uint32_t ranks = Layout::from_config(c).ranks();
    std::vector<RankTraffic> all(ranks);
    std::vector<std::unique_ptr<Transport>> transports;
    for (auto& t : LocalDriver().make_all(ranks)) transports.push_back(std::make_unique<Recording>(std::move(t), all));
    std::ostringstream out;
    ConsoleReport console(out, c, false);
    (void)run_in_process(c, std::move(transports), console);
    return all;
}

} // namespace evb::fuzz
