# Sourced by the benchmarks: installs what they need, builds a Release evbench in build-bench,
# and sets EVB (the binary) and OUT (bench/results, created).
bash launch/setup-debian.sh >/dev/null
cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_BUILD_TESTS=OFF >/dev/null
cmake --build build-bench >/dev/null
EVB=build-bench/evbench
OUT=bench/results; mkdir -p "$OUT"
