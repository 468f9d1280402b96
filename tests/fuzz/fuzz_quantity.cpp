// Sizes, durations and rates as users write them ("1MiB", "170ns", "100Gbps").
#include "fuzz_input.hpp"
#include "core/quantity.hpp"

#include <stdexcept>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text = evb::fuzz::text_of(data, size);
    try {
        (void)evb::parse_size(text);
    } catch (const std::invalid_argument&) {}
    try {
        (void)evb::parse_duration(text);
    } catch (const std::invalid_argument&) {}
    try {
        (void)evb::parse_rate_bps(text);
    } catch (const std::invalid_argument&) {}
    return 0;
}
