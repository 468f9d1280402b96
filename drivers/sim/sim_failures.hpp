// Failures injected into a simulated run (--fail NODE@TIME, --fail-kind): which ranks stop at
// which simulated time and when the survivors learn of it. The survivors then go through the
// same Node::lose_rank as a real run's transport or heartbeat would make them.
#pragma once
#include "exec/run_config.hpp"
#include "units/layout.hpp"

#include <string>
#include <vector>

namespace evb {

// process ru / bu: the process of the node's RU or BU dies, its connections close at once.
// node: the whole machine stops; it closes nothing, so only --heartbeat finds it.
enum class FailKind { node, ru, bu };
std::string to_string(FailKind k);

struct InjectedFailure {
    std::uint32_t node = 0;
    Picoseconds at{};
    std::vector<std::uint32_t> ranks; // what stops
    Picoseconds detected_at{}; // when the survivors learn of it
    std::string how;
};

// "3@2ms,5@4ms" -> node and time of each; ranks and detection come from resolve_failures.
// Throws ConfigError naming the bad item.
std::vector<InjectedFailure> parse_failures(const std::vector<std::string>& specs);

// Fills each failure's ranks and detection for this layout; throws ConfigError when the node
// does not exist, the kind has no process of its own there, or a dead machine could never be
// detected (no --heartbeat).
void resolve_failures(std::vector<InjectedFailure>& failures, FailKind kind, const Layout& layout, const Config& config);

} // namespace evb
