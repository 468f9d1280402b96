// Host-latency histogram files (--host-latency file:PATH, lines "latency weight"), and drawing from them.
#include "fuzz_input.hpp"
#include "netsim/engine/host_latency.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = evb::fuzz::as_file(data, size, ".hist");
    try {
        auto latency = evb::netsim::HostLatency::parse("file:" + path);
        (void)latency;
    } catch (const std::invalid_argument&) {}
    return 0;
}
