#include "drivers/transport/rails_transport.hpp"

#include "drivers/transport/driver.hpp"
#include "core/options.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>

namespace evb {

std::vector<std::string> nic_list(const std::string& rails) { return rails.empty() ? std::vector<std::string>{} : split_list(rails); }

std::unique_ptr<RailsTransport> RailsTransport::make(const Driver& driver, std::uint32_t rank, std::uint32_t ranks,
                                                     const std::string& rails) {
    std::vector<std::unique_ptr<Transport>> on_nics;
    std::vector<std::string> nics = nic_list(rails);
    for (const auto& nic : nics) on_nics.push_back(driver.make_rail(rank, ranks, nic));
    return std::make_unique<RailsTransport>(std::move(on_nics), std::move(nics));
}

RailsTransport::RailsTransport(std::vector<std::unique_ptr<Transport>> rails, std::vector<std::string> nics)
    : rails_(std::move(rails)), nics_(std::move(nics)), next_rail_(rails_.front()->size(), 0), bytes_(rails_.size(), 0) {}

Capabilities RailsTransport::capabilities() const {
    Capabilities c = rails_.front()->capabilities();
    for (const auto& r : rails_) c.max_message = std::min(c.max_message, r->capabilities().max_message);
    return c;
}

std::string RailsTransport::describe() const {
    std::string s = std::to_string(rails_.size()) + " rails, writes spread by segment:";
    for (std::size_t i = 0; i < rails_.size(); ++i) {
        const std::string d = rails_[i]->describe();
        s += (i ? "; " : " ") + nics_[i] + (d.empty() ? "" : " (" + d + ")");
    }
    return s;
}

std::string RailsTransport::local_address() {
    nlohmann::json a = nlohmann::json::array();
    for (auto& r : rails_) a.push_back(r->local_address());
    return a.dump();
}

void RailsTransport::connect(const std::vector<std::string>& addresses, Picoseconds timeout) {
    // Every rank connects rail 0 first, then rail 1, ...: each step is a whole all-to-all.
    for (std::size_t i = 0; i < rails_.size(); ++i) {
        std::vector<std::string> of_rail;
        for (const auto& text : addresses) {
            const auto a = nlohmann::json::parse(text, nullptr, false);
            if (!a.is_array() || a.size() != rails_.size())
                throw std::runtime_error("--rails: a peer has " + (a.is_array() ? std::to_string(a.size()) : std::string("no")) +
                                         " rails, this rank " + std::to_string(rails_.size()) +
                                         " (every rank must be given the same number)");
            of_rail.push_back(a[i].get<std::string>());
        }
        rails_[i]->connect(of_rail, timeout);
    }
}

MemoryRegion RailsTransport::register_memory(std::byte* base, std::size_t length) {
    std::vector<MemoryRegion> on_rails;
    for (auto& r : rails_) on_rails.push_back(r->register_memory(base, length));
    regions_.push_back(std::move(on_rails));
    return {base, length, regions_.size()};
}

std::string RailsTransport::registration_card() const {
    nlohmann::json card = nlohmann::json::array();
    for (const auto& on_rails : regions_) {
        nlohmann::json keys = nlohmann::json::array();
        for (const auto& region : on_rails) keys.push_back(region.key);
        card.push_back(keys);
    }
    return card.dump();
}

void RailsTransport::learn_registrations(const std::vector<std::string>& cards) {
    peer_keys_.assign(cards.size(), {});
    for (std::size_t peer = 0; peer < cards.size(); ++peer) {
        const auto card = nlohmann::json::parse(cards[peer], nullptr, false); // a rank gone before registering: none
        if (!card.is_array()) continue;
        for (const auto& keys : card) peer_keys_[peer].push_back(keys.get<std::vector<std::uint64_t>>());
    }
}

PostStatus RailsTransport::post_send(std::uint32_t peer, const CommandBytes& command) {
    Transport& rail = *rails_[peer % rails_.size()];
    const PostStatus s = rail.post_send(peer, command);
    if (s == PostStatus::error) last_error_ = rail.last_error();
    return s;
}

PostStatus RailsTransport::post_write(std::uint32_t peer, const WriteRequest& w) {
    if (peer >= size()) {
        last_error_ = no_such_rank(peer, size());
        return PostStatus::error;
    }
    if (w.local.key == 0 || w.local.key > regions_.size()) {
        last_error_ = "a write from memory not registered with this transport";
        return PostStatus::error;
    }
    if (peer >= peer_keys_.size() || w.remote_key == 0 || w.remote_key > peer_keys_[peer].size()) {
        last_error_ = "rank " + std::to_string(peer) + " has no region with key " + std::to_string(w.remote_key);
        return PostStatus::error;
    }
    // The next rail in turn; a full one passes its turn to the others.
    for (std::size_t tries = 0; tries < rails_.size(); ++tries) {
        const std::size_t i = next_rail_[peer]++ % rails_.size();
        WriteRequest on_rail = w; // the rail's registration of the source, and the peer's key on that rail
        on_rail.local = regions_[w.local.key - 1][i];
        on_rail.remote_key = peer_keys_[peer][w.remote_key - 1][i];
        const PostStatus s = rails_[i]->post_write(peer, on_rail);
        if (s == PostStatus::ok && peer != rank()) bytes_[i] += w.length; // a write to itself never reaches the NIC
        if (s == PostStatus::error) last_error_ = rails_[i]->last_error();
        if (s != PostStatus::no_resource) return s;
    }
    return PostStatus::no_resource;
}

std::size_t RailsTransport::poll(std::span<Completion> out) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < rails_.size() && n < out.size(); ++k)
        n += rails_[(first_polled_ + k) % rails_.size()]->poll(out.subspan(n));
    first_polled_ = (first_polled_ + 1) % rails_.size();
    return n;
}

std::vector<Transport::RailBytes> RailsTransport::rail_bytes() const {
    std::vector<RailBytes> v;
    for (std::size_t i = 0; i < rails_.size(); ++i) v.push_back({nics_[i], bytes_[i]});
    return v;
}

} // namespace evb
