// Fuzz targets that make their seeds from real traffic do it when EVB_FUZZ_SEEDS names a folder:
// they write the seeds there and exit before fuzzing (tests/fuzz/run.sh).
#pragma once
#include <cstdlib>
#include <fstream>
#include <string>

namespace evb::fuzz {

inline const char* seed_dir() { return std::getenv("EVB_FUZZ_SEEDS"); }

// A wire fuzzer's LLVMFuzzerInitialize: with EVB_FUZZ_SEEDS, `write` makes the seeds and the
// process exits before fuzzing.
inline void write_seeds_when_asked(void (*write)()) {
    if (!seed_dir()) return;
    write();
    std::exit(0);
}

inline void write_seed(const std::string& name, const std::string& bytes) {
    std::ofstream(std::string(seed_dir()) + "/" + name, std::ios::binary | std::ios::trunc) << bytes;
}

template <class T>
void append_bytes(std::string& out, const T& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

} // namespace evb::fuzz
