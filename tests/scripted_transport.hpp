// A transport the test scripts, for a Node without peers: it records the writes posted and hands
// out the completions the test queues.
#pragma once
#include "drivers/transport/transport.hpp"

#include <string>
#include <utility>
#include <vector>

namespace evb::test {

class ScriptedTransport final : public Transport {
public:
    const char* name() const override { return "scripted"; }
    std::uint32_t rank() const override { return self; }
    std::uint32_t size() const override { return 3; }
    Capabilities capabilities() const override { return {true, 1u << 20, 64, false}; }
    std::string local_address() override { return ""; }
    void connect(const std::vector<std::string>&, Picoseconds) override {}
    MemoryRegion register_memory(std::byte* base, std::size_t length) override { return {base, length, 1}; }
    PostStatus post_send(std::uint32_t, const CommandBytes&) override { return PostStatus::ok; }
    PostStatus post_write(std::uint32_t peer, const WriteRequest& w) override {
        if (peer == refused) return PostStatus::error;
        writes.emplace_back(peer, w.cookie);
        return PostStatus::ok;
    }
    std::string last_error() const override { return "connection to rank " + std::to_string(refused) + ": disconnected"; }
    std::size_t poll(std::span<Completion> out) override {
        std::size_t n = 0;
        for (; n < out.size() && !script.empty(); ++n) {
            out[n] = script.front();
            script.erase(script.begin());
        }
        return n;
    }
    std::vector<std::pair<std::uint32_t, std::uint64_t>> writes; // peer, the node's cookie
    std::vector<Completion> script;
    std::uint32_t refused = UINT32_MAX; // a peer whose writes fail, as a lost one's do
    std::uint32_t self = 0; // the rank it is (of 3)
};

} // namespace evb::test
