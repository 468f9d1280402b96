// Where a peer's registered regions are, for drivers whose one-sided writes nothing bounds-checks
// reliably on the way (MPI RMA performs a put outside the target's memory; libfabric's tcp and
// shm providers leave a write to a bad key without any completion): each rank publishes a table
// of its regions in memory its peers can read, and a writer checks every write against its copy
// of the target's table, reading the table again when a key is not in its copy. A region's key is
// its index in the table + 1.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

struct RegionEntry {
    std::uint64_t base = 0, length = 0; // base: the address peers write at (length 0: no region)
    std::uint64_t fabric_key = 0; // the key the fabric knows the region by, where it chose one
};

class RegionDirectory {
public:
    RegionDirectory(std::uint32_t peers, std::uint32_t capacity);

    // This rank's table, to publish (register or attach) once, before its address is shared.
    RegionEntry* table() { return own_.data(); }
    std::size_t table_bytes() const { return own_.size() * sizeof(RegionEntry); }
    // Enters a region; returns its key. Throws std::runtime_error when the table is full.
    std::uint64_t add(std::uint64_t base, std::uint64_t length, std::uint64_t fabric_key = 0);

    enum class Lookup {
        found, // `entry` holds the region; the write fits
        fetch, // read the peer's table into fetch_buffer(peer), then call fetched(peer); retry
        wait, // a read of the peer's table is in flight; retry
        refused, // no such region, or the write does not fit: why() says which
    };
    Lookup find(std::uint32_t peer, std::uint64_t key, std::uint64_t offset, std::uint64_t length, RegionEntry& entry);
    RegionEntry* fetch_buffer(std::uint32_t peer) { return peers_[peer].fetching.data(); }
    void fetched(std::uint32_t peer);
    void fetch_failed(std::uint32_t peer) { peers_[peer].in_flight = false; }
    const std::string& why() const { return why_; }

private:
    struct Peer {
        std::vector<RegionEntry> copy, fetching;
        bool in_flight = false;
        bool fresh = false; // a read finished and no write has used it since
    };
    std::vector<RegionEntry> own_;
    std::size_t used_ = 0;
    std::vector<Peer> peers_;
    std::string why_;
};

} // namespace evb
