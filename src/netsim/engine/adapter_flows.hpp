// One host adapter's messages on one VL waiting to be cut into packets (HostAdapters): a flow per
// destination, in destination order, each holding its messages in posting order (the caller
// links them), the bytes of the head message not yet cut and the blocks of its next packet; and
// the adapter's round robin over the flows: the destination granted last and the index of the
// flow after it, kept as flows come and go instead of a binary search per packet. The adapter
// cuts its packets from the flow alone: its round robin visits every flow between two packets of
// one, so the head message's line would be a miss per packet.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace evb::netsim {

class AdapterFlows {
public:
    static constexpr std::uint32_t none = UINT32_MAX;
    struct Flow {
        std::uint32_t dst, head, tail, need;
        std::uint64_t left;
    };

    bool empty() const { return flows_.empty(); }
    std::size_t size() const { return flows_.size(); }
    const Flow& operator[](std::size_t f) const { return flows_[f]; }
    // Where the round robin starts: the flow after the one granted last.
    std::size_t next() const { return next_; }
    // The flow the round robin visits first (there is one).
    const Flow& first_to_visit() const { return flows_[next_ < flows_.size() ? next_ : 0]; }

    // Message `m` of `bytes` to `dst`, whose first packet needs `need` blocks: behind the messages
    // of dst's flow (returns that flow's tail, which the caller links to m), or a new flow (returns
    // none).
    std::uint32_t queue(std::uint32_t dst, std::uint32_t m, std::uint64_t bytes, std::uint32_t need) {
        auto it = std::lower_bound(flows_.begin(), flows_.end(), dst, [](const Flow& f, std::uint32_t d) { return f.dst < d; });
        if (it != flows_.end() && it->dst == dst) {
            const std::uint32_t tail = it->tail;
            it->tail = m;
            return tail;
        }
        if (last_ != none && dst <= last_) ++next_; // a flow before the round robin's place
        flows_.insert(it, Flow{dst, m, m, need, bytes});
        return none;
    }

    // A packet of `payload` bytes was cut from flow `f`: the round robin goes on after it. Returns
    // the bytes of its head message still to be cut.
    std::uint64_t cut(std::size_t f, std::uint32_t payload) {
        Flow& flow = flows_[f];
        flow.left -= payload;
        last_ = flow.dst;
        next_ = static_cast<std::uint32_t>(f + 1);
        return flow.left;
    }
    // Flow `f`'s next packet needs `need` blocks.
    void set_need(std::size_t f, std::uint32_t need) { flows_[f].need = need; }
    // Flow `f`'s head message is all cut: message `m` of `bytes` is its head now.
    void advance(std::size_t f, std::uint32_t m, std::uint64_t bytes, std::uint32_t need) {
        Flow& flow = flows_[f];
        flow.head = m;
        flow.left = bytes;
        flow.need = need;
    }
    // Flow `f` has no message left.
    void remove(std::size_t f) {
        flows_.erase(flows_.begin() + static_cast<std::ptrdiff_t>(f));
        next_ = static_cast<std::uint32_t>(f); // the flow after it moved into its place
    }

    // The flows whose next packet needs fewer than `blocks` (checks).
    std::size_t count_below(std::uint32_t blocks) const {
        return static_cast<std::size_t>(std::count_if(flows_.begin(), flows_.end(), [&](const Flow& f) { return f.need < blocks; }));
    }

private:
    std::vector<Flow> flows_;
    std::uint32_t last_ = none, next_ = 0;
};

} // namespace evb::netsim
