# Sourced by every benchmark, from the repository's root. Sets:
#   EVB     the evbench binary, an absolute path: build-bench/evbench, built here (Release, after
#           the packages are installed), or that of the build directory EVB_BENCH_BUILD names
#           (the system tier's smoke runs give build/);
#   MEMCPY  bench/memcpy_bandwidth of the same build directory;
#   SMOKE   and smoke(), from bench/smoke.sh (EVB_BENCH_SMOKE=1: one short point of every kind);
#   OUT     where results go: bench/results, or bench/results/smoke in smoke mode.
source bench/smoke.sh
if [ -n "${EVB_BENCH_BUILD:-}" ]; then
  bench_build=$EVB_BENCH_BUILD
else
  bash launch/setup-debian.sh >/dev/null
  cmake -S . -B build-bench -G Ninja -DCMAKE_BUILD_TYPE=Release -DEVB_BUILD_TESTS=OFF >/dev/null
  cmake --build build-bench >/dev/null
  bench_build=build-bench
fi
for binary in evbench bench/memcpy_bandwidth; do
  [ -x "$bench_build/$binary" ] || { echo "$(basename "$0"): no $bench_build/$binary (EVB_BENCH_BUILD names a build directory)" >&2; exit 2; }
done
EVB=$(realpath "$bench_build/evbench")
MEMCPY=$(realpath "$bench_build/bench/memcpy_bandwidth")
OUT=bench/results$(smoke "" /smoke)
mkdir -p "$OUT"
# listening PORT: waits until a TCP socket listens on PORT here (a peer tool's server started in
# the background), at most 10 s, so that its client never starts before it under load.
listening() {
  local tries=0
  until ss -ltnH "sport = :$1" | grep -q .; do
    tries=$((tries + 1))
    [ $tries -le 200 ] || { echo "$(basename "$0"): no server listens on port $1 after 10 s" >&2; return 1; }
    sleep 0.05
  done
}
