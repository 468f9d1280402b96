// N ranks of one driver for the transport conformance suite. Drivers whose ranks can share a
// process (local, tcp, verbs, sim) have every rank here, each rank's connect on its own thread;
// mpi has one rank per process under mpirun, so the same test body runs in every process (SPMD):
// each process acts for the ranks that are mine(), gathers what it must know of the others
// (region keys) and drive() is collective. Tests are written so that both read alike: post only
// from mine() ranks, check only mine() ranks.
#pragma once
#include "drivers/transport/transport.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace evb::test {

class TransportWorld {
public:
    // flags: the driver's own options as on the command line ("--tcp-read-chunk", "7"). Returns
    // nullptr with `why_not` set when this process takes no part (a driver not built, no RDMA
    // device, mpi outside mpirun, or this process beyond the world's ranks). heartbeat: as
    // --heartbeat, for the drivers that beat (10 s: long enough that no test's step leaves a
    // rank unpolled that long, short enough to find a killed rank where the fabric does not).
    static std::unique_ptr<TransportWorld> make(const std::string& driver, std::uint32_t ranks, std::vector<std::string> flags,
                                                std::string& why_not, Picoseconds heartbeat = Picoseconds::from_seconds(10));
    virtual ~TransportWorld() = default;

    std::uint32_t size() const { return ranks_; }
    virtual bool mine(std::uint32_t rank) const {
        (void)rank;
        return true;
    }
    Transport& at(std::uint32_t rank); // a rank of mine
    Transport& any_of_mine();
    bool alive(std::uint32_t rank) const { return transports_.at(rank) != nullptr; }
    // Ends a rank abruptly, as a process that dies (its connections close).
    void kill(std::uint32_t rank) { transports_.at(rank).reset(); }

    // Every rank's value (each process gives those of its own ranks), e.g. region keys.
    virtual std::vector<std::uint64_t> gather(const std::function<std::uint64_t(std::uint32_t)>& value_of_mine);
    // Whether any process says true.
    virtual bool any(bool mine_says) { return mine_says; }
    // Whether `check` holds for every rank of mine.
    bool all_mine(const std::function<bool(std::uint32_t)>& check) const;

    // Every completion each rank of mine produced, in order (peer_lost's error text copied).
    struct Got {
        Completion completion;
        std::string error;
    };
    std::vector<std::vector<Got>> got;

    // Polls my ranks until `done` holds in every process, or a hang guard of `guard_s` seconds
    // passes (a guard against a stuck driver, never a measurement). Returns whether `done` held.
    bool drive(const std::function<bool()>& done, double guard_s = 60);
    // The same, polling only `ranks` (the others neither send nor receive meanwhile).
    bool drive_only(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s = 60);
    // Until `done` holds in any process.
    bool drive_until_any(const std::function<bool()>& done, double guard_s = 60);
    // One round of polls of my ranks (of those among `ranks`), in this process only (not collective).
    void progress() { progress(all_ranks()); }
    void progress(const std::vector<std::uint32_t>& ranks);

protected:
    // Combines this process's verdicts with the others': {every process done (or any, with
    // `until_any`), some process past its guard}.
    virtual std::pair<bool, bool> agree(bool done, bool late, bool until_any) {
        (void)until_any;
        return {done, late};
    }
    // Advances what delivers besides polling (the simulated fabric's engine).
    virtual void advance() {}
    std::vector<std::uint32_t> all_ranks() const;
    bool drive_loop(const std::vector<std::uint32_t>& ranks, const std::function<bool()>& done, double guard_s, bool until_any);

    std::uint32_t ranks_ = 0;
    std::vector<std::unique_ptr<Transport>> transports_; // nullptr: not mine, or killed
};

// Posts until the driver takes it (no_resource: progress in this process, try again), for at
// most a hang guard of 60 s (then no_resource).
PostStatus post_until_taken(TransportWorld& w, const std::function<PostStatus()>& post);

// mpi_world.cpp (built with the mpi driver): the SPMD world under mpirun.
std::unique_ptr<TransportWorld> make_mpi_world(std::uint32_t ranks, bool rma, std::string& why_not);

} // namespace evb::test
