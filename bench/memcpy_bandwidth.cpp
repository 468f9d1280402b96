// Single-thread memcpy bandwidth over the same footprint as an evbench `local` run: the machine's
// own limit for an in-process event builder, which copies every fragment once.
// Usage: memcpy_bandwidth <block bytes> <source blocks> <destination blocks> <seconds>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: memcpy_bandwidth BLOCK_BYTES SRC_BLOCKS DST_BLOCKS SECONDS\n");
        return 2;
    }
    std::size_t block = std::strtoull(argv[1], nullptr, 10);
    std::size_t src_blocks = std::strtoull(argv[2], nullptr, 10), dst_blocks = std::strtoull(argv[3], nullptr, 10);
    double seconds = std::atof(argv[4]);
    if (!block || !src_blocks || !dst_blocks || seconds <= 0) {
        std::fprintf(stderr, "memcpy_bandwidth: all arguments must be positive\n");
        return 2;
    }
    std::vector<char> src(block * src_blocks, 1), dst(block * dst_blocks, 0);
    auto start = std::chrono::steady_clock::now();
    std::size_t copied = 0, i = 0;
    double elapsed = 0;
    while (elapsed < seconds) {
        for (int k = 0; k < 64; ++k, ++i) {
            std::memcpy(dst.data() + (i % dst_blocks) * block, src.data() + (i % src_blocks) * block, block);
            copied += block;
        }
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    volatile char sink = dst[block / 2];
    (void)sink;
    std::printf("%.3f\n", static_cast<double>(copied) * 8 / elapsed / 1e9); // Gb/s
    return 0;
}
