// What the drivers of a fabric between processes keep alike: this rank, the run's size, the text
// of the last error a call returned, and the completions queued for the next poll (loopback
// deliveries, a lost peer's, ones taken while arming a wait object).
#pragma once
#include "ring_queue.hpp"
#include "transport.hpp"

#include <string>

namespace evb {

class PeerTransport : public Transport {
public:
    std::uint32_t rank() const override { return rank_; }
    std::uint32_t size() const override { return size_; }
    std::string last_error() const override { return last_error_; }

protected:
    // A driver that learns its rank and size later (mpi, from its communicator) sets them then.
    PeerTransport(std::uint32_t rank, std::uint32_t size, std::size_t ready_capacity = 0) : rank_(rank), size_(size), ready_(ready_capacity) {}

    std::uint32_t rank_, size_;
    RingQueue<Completion> ready_;
    std::string last_error_;
};

} // namespace evb
