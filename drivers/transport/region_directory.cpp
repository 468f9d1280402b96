#include "drivers/transport/region_directory.hpp"

#include "drivers/transport/write_target.hpp"

#include <stdexcept>

namespace evb {

RegionDirectory::RegionDirectory(std::uint32_t peers, std::uint32_t capacity) : own_(capacity), peers_(peers) {}

std::uint64_t RegionDirectory::add(std::uint64_t base, std::uint64_t length, std::uint64_t fabric_key) {
    if (used_ == own_.size()) throw std::runtime_error("more than " + std::to_string(own_.size()) + " registered regions");
    own_[used_] = {base, length, fabric_key};
    return ++used_;
}

RegionDirectory::Lookup RegionDirectory::find(std::uint32_t peer, std::uint64_t key, std::uint64_t offset, std::uint64_t length,
                                              RegionEntry& entry) {
    Peer& p = peers_[peer];
    if (key >= 1 && key <= p.copy.size() && p.copy[key - 1].length > 0) {
        entry = p.copy[key - 1];
        p.fresh = false;
        if (span_fits(offset, length, entry.length)) return Lookup::found;
        why_ = "write of " + std::to_string(length) + " B at offset " + std::to_string(offset) + " is outside rank " +
            std::to_string(peer) + "'s region " + std::to_string(key) + " (" + std::to_string(entry.length) + " B)";
        return Lookup::refused;
    }
    if (p.in_flight) return Lookup::wait;
    if (p.fresh || key == 0 || key > own_.size()) { // read after the key was given to us, and still not there
        p.fresh = false;
        why_ =
            "rank " + std::to_string(peer) + " has no registered region with key " + std::to_string(key) + ": a write outside its regions";
        return Lookup::refused;
    }
    p.fetching.assign(own_.size(), RegionEntry{});
    p.in_flight = true;
    return Lookup::fetch;
}

void RegionDirectory::fetched(std::uint32_t peer) {
    Peer& p = peers_[peer];
    p.copy.swap(p.fetching);
    p.in_flight = false;
    p.fresh = true;
}

} // namespace evb
