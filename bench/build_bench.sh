# Sourced by the benchmarks: installs what they need, builds a Release evbench in build-bench,
# and sets EVB (the binary) and OUT (bench/results, created). EVB_BENCH_EVBENCH=BINARY uses that
# evbench instead of building one (the system tier's smoke runs give build/evbench).
bash launch/setup-debian.sh >/dev/null
if [ -n "${EVB_BENCH_EVBENCH:-}" ]; then
  EVB=$EVB_BENCH_EVBENCH
else
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench >/dev/null
  EVB=build-bench/evbench
fi
OUT=bench/results; mkdir -p "$OUT"
