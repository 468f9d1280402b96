// Where a rank ran, for a result's provenance: its host and PID, the kernel and CPU model, its NIC
// with driver and firmware where the system tells them, and the environment variables that steer
// transports and launchers (FI_, UCX_, OMPI_, PSM2_, SLURM_, PMIX_, EVBENCH_; never one that names
// a key, secret, token or password). Every rank sends its own to rank 0, which reads them as
// untrusted input.
#pragma once
#include "core/placement.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace evb {

struct RankOrigin {
    std::optional<std::uint32_t> rank; // empty: the one process that ran every rank
    std::string host;
    std::int64_t pid = 0;
    std::string kernel; // "Linux 6.1.0-28-amd64 #1 SMP ..."
    std::string cpu_model;
    std::string nic, nic_driver, nic_firmware; // empty where unknown
    std::string address; // the IPv4 address of the NIC's interface, where it has one
    std::map<std::string, std::string> environment;

    nlohmann::json to_json() const;
    // A peer's record: std::invalid_argument naming the field that is missing, of the wrong kind
    // or longer than a record of this kind can be.
    static RankOrigin from_json(const nlohmann::json& j);
};

RankOrigin this_process_origin(std::optional<std::uint32_t> rank, const NicName& nic);

// A result's "origin": each host once (kernel, CPU model), each rank with its host, PID and NIC,
// the environment of the first rank and, per other rank, only the variables that differ from it
// (a null value: not set there).
nlohmann::json origins_json(const std::vector<RankOrigin>& ranks);

} // namespace evb
